package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.DeviceStatus;
import io.vte.api.EngineDiagnostics;
import io.vte.api.ErrorCode;
import io.vte.api.FaultInjector;
import io.vte.api.OwnerStats;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link TransferEngine#diagnostics()} through the public API only: names, metadata, devices,
 * rails, counters, owner figures, and the soft-verbs fault injector taking a port down and a QP
 * into error.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineDiagnosticsTest {

  private static final int LENGTH = 256 << 10;

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private static void write(
      TransferEngine from, RegisteredBuffer local, SegmentHandle seg, RegisteredBuffer remote) {
    assertTrue(
        Await.result(
                from.submit(
                        List.of(TransferRequest.write(local, 0, seg, remote.address(), LENGTH)),
                        new TransferOptions().setDeadline(Duration.ofSeconds(20)))
                    .result(),
                WAIT)
            .allCompleted());
  }

  @Test
  void diagnosticsShowNamesDevicesRailsAndCounters() {
    TransferEngine a = fx.start(2, 2);
    TransferEngine b = fx.start(2, 1);
    EngineDiagnostics d = a.diagnostics();
    assertEquals(a.serverName(), d.serverName());
    assertEquals(a.serverName(), d.segmentName(), "p2p: the segment is named after the server");
    assertEquals("p2p", d.metadata().uri());
    assertFalse(d.metadata().degraded());
    List<DeviceStatus> devices = d.devices();
    assertEquals(2, devices.size());
    for (DeviceStatus dev : devices) {
      assertTrue(dev.active(), dev.toString());
      assertEquals("ACTIVE", dev.portState());
      assertEquals(a.serverName() + "@" + dev.name(), dev.nicPath());
      assertTrue(dev.lid() > 0, "soft verbs: the listen port " + dev);
      assertNull(dev.error());
      assertEquals(List.of(), dev.liveQpNumbers(), "no endpoint yet");
    }
    assertEquals(List.of(), d.rails(), "no rail before the first transfer");
    assertEquals(0, d.counters().bytes());

    RegisteredBuffer local = fx.register(a, LENGTH, 1);
    RegisteredBuffer remote = fx.register(b, LENGTH, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    write(a, local, seg, remote);
    assertEquals(
        LENGTH,
        d.counters().bytes(),
        "the counters are live: the same diagnostics object reads them again");
    assertTrue(d.counters().slices() > 0 && d.counters().batches() == 1, d.counters().toString());
    List<RailStatus> rails = d.rails();
    assertEquals(4, rails.size(), "2 local x 2 peer devices: " + rails);
    for (RailStatus r : rails) {
      assertEquals(b.serverName(), r.peerServer());
      assertTrue(r.usable(), r.toString());
      assertEquals(0, r.backlogBytes(), "nothing in flight: " + r);
    }
    assertEquals(devices.get(0).name(), rails.get(0).localDevice(), "in local device order");
    OwnerStats owners = d.owners();
    assertTrue(owners.handshakesActive() > 0 && owners.endpointsAlive() > 0, owners.toString());
    assertTrue(
        d.devices().stream().anyMatch(dev -> !dev.liveQpNumbers().isEmpty()),
        "connected endpoints own QPs");
    assertTrue(b.diagnostics().owners().handshakesPassive() > 0, "the peer accepted");
    String shown = d.toString();
    assertTrue(
        shown.startsWith("EngineDiagnostics[server=" + a.serverName())
            && shown.contains(devices.get(0).name() + " ACTIVE")
            && shown.contains(
                rails.get(0).localDevice()
                    + "->"
                    + b.serverName()
                    + "@"
                    + rails.get(0).peerDevice())
            && shown.contains("bytes=" + LENGTH),
        "readable when printed: " + shown);
  }

  @Test
  void theFaultInjectorTakesAPortDownAndUpAndFailsAQp() {
    TransferEngine a = fx.start(2, 1);
    TransferEngine b = fx.start(2, 1);
    FaultInjector faults = a.diagnostics().faultInjector().orElseThrow();
    String first = a.diagnostics().devices().get(0).name();
    faults.portDown(first);
    Await.until(
        "port of " + first + " down in the diagnostics",
        WAIT,
        () -> !a.diagnostics().devices().get(0).active());
    assertEquals("DOWN", a.diagnostics().devices().get(0).portState());
    assertTrue(a.diagnostics().devices().get(1).active(), "the other device is untouched");

    RegisteredBuffer local = fx.register(a, LENGTH, 1);
    RegisteredBuffer remote = fx.register(b, LENGTH, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    write(a, local, seg, remote);
    Await.until(
        "rails of " + first + " show its port down",
        WAIT,
        () ->
            a.diagnostics().rails().stream()
                .filter(r -> r.localDevice().equals(first))
                .allMatch(r -> !r.localPortUp() && !r.usable()));
    faults.portUp(first);
    Await.until(
        "port of " + first + " up again",
        WAIT,
        () ->
            a.diagnostics().devices().get(0).active()
                && a.diagnostics().rails().stream().allMatch(RailStatus::localPortUp));

    DeviceStatus carrying =
        a.diagnostics().devices().stream()
            .filter(dev -> !dev.liveQpNumbers().isEmpty())
            .findFirst()
            .orElseThrow();
    long retired = a.diagnostics().owners().endpointsRetired();
    faults.failQp(carrying.name(), carrying.liveQpNumbers().get(0));
    Await.until(
        "the failed QP's endpoint retired",
        WAIT,
        () -> a.diagnostics().owners().endpointsRetired() > retired);
    write(a, local, seg, remote);

    VteException unknown = assertThrows(VteException.class, () -> faults.portDown("nosuchdevice"));
    assertEquals(ErrorCode.INVALID_ARGUMENT, unknown.code());
    assertTrue(unknown.getMessage().contains("nosuchdevice"), unknown.getMessage());
    VteException badFraction =
        assertThrows(VteException.class, () -> faults.dropFrames(first, 1.5, 1));
    assertEquals(ErrorCode.INVALID_ARGUMENT, badFraction.code());
  }

  /**
   * The diagnostics example of docs/operations.md, run as printed: its block is the code between
   * the markers below, and it takes the engine's first device down through the fault injector.
   */
  @Test
  void theDocumentedDiagnosticsExampleRunsAsPrinted() throws Exception {
    TransferEngine engine = fx.start(2, 1);
    // README:diagnostics-example:begin
    EngineDiagnostics d = engine.diagnostics();
    System.out.println(d.segmentName() + " " + d.devices() + " retries " + d.counters().retries());
    // empty on ibverbs
    d.faultInjector().ifPresent(faults -> faults.portDown(d.devices().get(0).name()));
    // README:diagnostics-example:end
    String device = d.devices().get(0).name();
    Await.until(
        "the example's port-down shows",
        WAIT,
        () -> !engine.diagnostics().devices().get(0).active());
    assertEquals(device, engine.diagnostics().devices().get(0).name());
    String src =
        Files.readString(Path.of("src/test/java/io/vte/engine/impl/EngineDiagnosticsTest.java"));
    String begin = "// README:diagnostics-example:begin\n";
    int from = src.indexOf(begin) + begin.length();
    String example =
        src.substring(from, src.indexOf("    // README:diagnostics-example:end", from))
            .lines()
            .map(l -> l.replaceFirst("^    ", ""))
            .reduce("", (x, y) -> x + y + "\n");
    String readme = Files.readString(Path.of("../../docs/operations.md"));
    int at = readme.indexOf("**Diagnostics and faults.**");
    assertTrue(at >= 0, "docs/operations.md has the diagnostics paragraph");
    Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertTrue(m.find(at), "a java block after it");
    assertEquals(
        example, m.group(1), "docs/operations.md's diagnostics block is this test's example");
  }
}
