package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code vte bench target} and {@code vte bench initiator} as child processes: WRITE and READ with
 * verification parsed from {@code --json} (speeds not asserted), SIGTERM ends the target with its
 * cleanup, SIGINT too, both with exit code 0; a port in use and an unreachable target are one clear
 * line and exit code 3 (could not start); a target named with {@code --segment-name} is found
 * through etcd. Everything runs on loopback devices ({@code --devices 2}); the default devices
 * (this host's interfaces) are tested on namespace hosts, {@code test}'s {@code
 * hosts.CrossHostRecipeTest}.
 */
class TwoProcessBenchTest {

  private static final Duration START = Duration.ofSeconds(60);

  private static JsonObject initiator(String target, String... extra) throws Exception {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--duration",
                "0.5",
                "--warmup",
                "0.3",
                "--block-size",
                "1048576",
                "--verify",
                "--json",
                "--no-progress"));
    args.addAll(List.of(extra));
    try (ChildVte ini = ChildVte.benchInitiator(target, args.toArray(String[]::new))) {
      int exit = ini.exitCode(START);
      assertEquals(0, exit, "initiator stdout: " + ini.out() + " stderr: " + ini.err());
      assertEquals(1, ini.out().size(), "one JSON line: " + ini.out());
      assertFalse(
          ini.err().stream().anyMatch(l -> l.contains("has been blocked")),
          "no blocked event loop: " + ini.err());
      return new JsonObject(ini.out().get(0));
    }
  }

  @Test
  void writeAndReadBetweenTwoProcessesAreVerifiedAndTheTargetStopsOnSigterm() throws Exception {
    try (ChildVte target = ChildVte.benchTarget(67108864, "--handshake-timeout", "30")) {
      JsonObject a = target.announce(START);
      String name = a.getString("server_name");
      assertTrue(name.matches("127\\.0\\.0\\.1:\\d+"), a.encode());
      assertEquals(67108864L, a.getLong("buffer_bytes"));

      JsonObject write = initiator(name, "--operation", "write");
      assertEquals("initiator", write.getString("mode"));
      assertEquals("write", write.getString("operation"));
      assertEquals(0L, write.getLong("failed"));
      assertTrue(write.getLong("ops") > 0, write.encode());
      assertEquals(
          true,
          write.getBoolean("verified"),
          "the target read back equals what was written: " + write);
      JsonObject rails = write.getJsonObject("rail_bytes");
      assertEquals(
          write.getLong("ops") * write.getLong("size"),
          rails.getLong("network"),
          "the initiator counts the measured requests' bytes on its rails: " + write);
      assertEquals(0L, rails.getLong("same_host"), "a target not in shared memory: " + write);

      JsonObject read =
          initiator(
              name, "--operation", "read", "--threads", "2", "--batch-size", "2", "--depth", "2");
      assertEquals("read", read.getString("operation"));
      assertEquals(0L, read.getLong("failed"));
      assertTrue(read.getLong("ops") > 0, read.encode());
      assertEquals(
          true,
          read.getBoolean("verified"),
          "every block read carries the target's pattern: " + read);

      try (ChildVte ini =
          ChildVte.benchInitiator(
              name,
              "--block-size",
              "67108864",
              "--depth",
              "2",
              "--duration",
              "1",
              "--no-progress")) {
        assertEquals(3, ini.exitCode(START), "a target too small: could not start; " + ini.err());
        String last = ini.err().get(ini.err().size() - 1);
        assertTrue(
            last.startsWith("vte bench initiator: OUT_OF_RANGE")
                && last.contains("67108864")
                && last.contains("134217728"),
            last);
        assertTrue(ini.out().isEmpty(), ini.out().toString());
      }

      target.terminate();
      int exit = target.exitCode(Duration.ofSeconds(30));
      assertEquals(0, exit, "SIGTERM ends the target cleanly: " + target.err());
      assertFalse(
          target.err().stream().anyMatch(l -> l.contains("Exception")), target.err().toString());
    }
  }

  @Test
  void sigtermAndSigintOnARunningInitiatorPrintThePartialReportAndExit143And130() throws Exception {
    try (ChildVte target = ChildVte.benchTarget(67108864, "--handshake-timeout", "30")) {
      String name = target.announce(START).getString("server_name");
      for (boolean term : List.of(true, false)) {
        try (ChildVte ini =
            ChildVte.benchInitiator(
                name, "--duration", "600", "--warmup", "0", "--verify", "--json")) {
          io.vte.testkit.Await.until(
              "a progress line: the measured run is going",
              START.multipliedBy(3),
              () ->
                  !ini.process().isAlive()
                      || ini.err().stream().anyMatch(l -> l.contains(" GiB/s  ops ")));
          assertTrue(ini.process().isAlive(), "the initiator ended early: " + ini.err());
          if (term) {
            ini.terminate();
          } else {
            ini.interrupt();
          }
          assertEquals(
              term ? 143 : 130,
              ini.exitCode(Duration.ofSeconds(60)),
              "stdout: " + ini.out() + " stderr: " + ini.err());
          assertEquals(
              1,
              ini.out().size(),
              (term ? "SIGTERM" : "SIGINT")
                  + ": the report, one JSON line: "
                  + ini.out()
                  + " "
                  + ini.err());
          JsonObject report = new JsonObject(ini.out().get(0));
          assertTrue(report.getLong("ops") > 0 && report.getLong("failed") == 0, report.encode());
          assertEquals(true, report.getBoolean("verified"), report.encode());
          String signal = term ? "SIGTERM" : "SIGINT";
          assertTrue(
              ini.err().stream()
                  .anyMatch(l -> l.startsWith("vte bench: stopped by " + signal + " after ")),
              ini.err().toString());
        }
      }
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  @Test
  void sigintEndsTheTargetWithExitCode0() throws Exception {
    try (ChildVte target = ChildVte.benchTarget(1048576)) {
      target.announce(START);
      target.interrupt();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  @Test
  void aTargetNamedWithSegmentNameIsFoundThroughEtcdForWriteAndRead() throws Exception {
    try (EtcdServer etcd = EtcdServer.start();
        ChildVte target =
            ChildVte.benchTarget(
                16777216,
                "--segment-name",
                "bench-etcd",
                "--metadata",
                etcd.uri(),
                "--handshake-timeout",
                "30")) {
      JsonObject announce = target.announce(START);
      assertEquals("bench-etcd", announce.getString("segment_name"));
      for (String op : List.of("write", "read")) {
        JsonObject r = initiator("bench-etcd", "--metadata", etcd.uri(), "--operation", op);
        assertEquals(0L, r.getLong("failed"), r.encode());
        assertTrue(r.getLong("ops") > 0, r.encode());
        assertEquals(true, r.getBoolean("verified"), r.encode());
      }
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  @Test
  void aSegmentNameTargetNeedsEtcdAndAWildcardHostIsRefused() {
    io.vte.cli.CliRun p2p = io.vte.cli.CliRun.of("bench", "initiator", "--target", "bench-a");
    assertEquals(2, p2p.exit(), p2p.err());
    assertTrue(p2p.err().contains("'bench-a'") && p2p.err().contains("etcd"), p2p.err());
    io.vte.cli.CliRun wildcard = io.vte.cli.CliRun.of("bench", "target", "--host", "0.0.0.0");
    assertEquals(2, wildcard.exit(), wildcard.err());
    assertTrue(
        wildcard.err().contains("--host") && wildcard.err().contains("'0.0.0.0'"), wildcard.err());
  }

  @Test
  void theTargetPlaysItsOwnFaultScheduleAndReportsEachStep() throws Exception {
    try (ChildVte target =
        new ChildVte(
            "bench",
            "target",
            "--devices",
            "2",
            "--buffer-size",
            "1048576",
            "--inject",
            "port-down:soft1@0.2s,qp-fatal:soft0@0.3s,port-up:soft1@0.4s")) {
      assertNotNull(target.firstLine(START), "target stderr: " + target.err());
      io.vte.testkit.Await.until(
          "the three steps reported",
          START,
          () ->
              target.err().stream().filter(l -> l.startsWith("vte bench target: fault ")).count()
                  == 3);
      List<String> steps =
          target.err().stream().filter(l -> l.startsWith("vte bench target: fault ")).toList();
      assertEquals(
          List.of(
              "vte bench target: fault port-down:soft1@0.200s applied",
              "vte bench target: fault qp-fatal:soft0@0.300s applied to 0 QPs",
              "vte bench target: fault port-up:soft1@0.400s applied"),
          steps);
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  @Test
  void aPortInUseAndAnUnreachableTargetAreOneClearLineAndExitCodeThree() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      try (ChildVte target =
          new ChildVte("bench", "target", "--devices", "2", "--port", String.valueOf(port))) {
        assertEquals(3, target.exitCode(START), target.err().toString());
        List<String> errors =
            target.err().stream().filter(l -> l.startsWith("vte bench target: ")).toList();
        assertEquals(1, errors.size(), target.err().toString());
        assertTrue(errors.get(0).contains(String.valueOf(port)), errors.get(0));
      }
    }
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    try (ChildVte ini =
        new ChildVte(
            "bench",
            "initiator",
            "--devices",
            "2",
            "--target",
            "127.0.0.1:" + closed,
            "--duration",
            "1")) {
      assertEquals(3, ini.exitCode(START), ini.err().toString());
      List<String> errors =
          ini.err().stream().filter(l -> l.startsWith("vte bench initiator: ")).toList();
      assertEquals(1, errors.size(), ini.err().toString());
      assertTrue(
          errors.get(0).contains("PEER_UNREACHABLE")
              && errors.get(0).contains("127.0.0.1:" + closed),
          errors.get(0));
    }
  }
}
