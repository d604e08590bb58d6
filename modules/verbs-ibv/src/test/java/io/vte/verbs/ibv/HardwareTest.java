package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DeviceInfo;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real RDMA NICs: {@code mvn -Phardware -pl modules/verbs-ibv test}. Fails when the shim does not
 * load; skips with the provider's reason where it loads but finds no device. WRITE/READ runs
 * between the first two devices (or two QPs of one device when it has only one); the port flap test
 * needs {@code -Dvte.hardware.flapCommand="..."}, a shell command that takes the first device's
 * port 1 down and up again (e.g. {@code ip link set enp1s0f0 down; sleep 3; ip link set enp1s0f0
 * up}).
 */
@Tag("hardware")
class HardwareTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int SIZE = 1 << 20;
  private static final int MTU = 1024;

  private static VerbsProvider availableProvider() {
    // On the machine this suite is for, a shim that does not load (or whose layout probe does not
    // match the jar) is the failure to report, not a reason to skip.
    VerbsException load = IbvLibrary.failure();
    assertNull(load, () -> "the ibverbs shim did not load: " + load.getMessage());
    VerbsProvider provider = VerbsProviders.create("ibverbs", new JsonObject());
    Throwable cause = provider.unavailabilityCause();
    assumeTrue(provider.isAvailable(), () -> "no usable RDMA device: " + cause.getMessage());
    return provider;
  }

  /** One side of a connection: device, PD, CQ, QP and a registered 1 MiB buffer. */
  private static final class Side implements AutoCloseable {
    final VerbsContext ctx;
    final PortAttributes port;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final long memory;
    final MemoryRegion mr;

    Side(VerbsProvider provider, String device) {
      ctx = provider.open(device);
      port = ctx.queryPort(1);
      pd = ctx.allocPd();
      cq = ctx.createCq(64);
      qp = pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
      memory = DirectMemory.allocate(SIZE);
      mr = pd.registerMemory(memory, SIZE, AccessFlags.ALL_REMOTE);
    }

    QpPeer asPeer(int psn) {
      return new QpPeer(qp.qpNum(), port.lid(), port.gid(), psn);
    }

    @Override
    public void close() {
      ctx.close();
      DirectMemory.free(memory);
    }
  }

  private static void connect(Side a, Side b) {
    a.qp.toInit(1, AccessFlags.ALL_REMOTE);
    b.qp.toInit(1, AccessFlags.ALL_REMOTE);
    a.qp.toRtr(b.asPeer(0x200), MTU);
    b.qp.toRtr(a.asPeer(0x100), MTU);
    a.qp.toRts(new RtsAttributes(0x100, 14, 7, 7));
    b.qp.toRts(new RtsAttributes(0x200, 14, 7, 7));
  }

  private static void runOne(
      Side from, int opcode, long local, long remote, int length, MemoryRegion target) {
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(
        opcode, opcode, WrFlags.SIGNALED, local, length, from.mr.lkey(), remote, target.rkey());
    assertEquals(0, from.qp.postSend(batch));
    WorkCompletionBatch out = WorkCompletionBatch.allocate(4);
    Await.until("completion of " + WrOpcode.name(opcode), DEADLINE, () -> from.cq.poll(out) > 0);
    assertEquals(WcStatus.SUCCESS, WcStatus.of(out.status(0)), "vendor_err " + out.vendorErr(0));
    assertEquals(WcOpcode.forWrOpcode(opcode), out.opcode(0));
  }

  @Test
  void writeThenReadBetweenTwoDevices() {
    ResourceSnapshot before = ResourceSnapshot.take();
    try (VerbsProvider provider = availableProvider()) {
      List<DeviceInfo> devices = provider.devices();
      String second = devices.get(devices.size() > 1 ? 1 : 0).name();
      assumeTrue(
          devices.get(0).ports().get(0).state() == PortState.ACTIVE,
          "port 1 of the first device is down");
      try (Side a = new Side(provider, devices.get(0).name());
          Side b = new Side(provider, second)) {
        connect(a, b);
        int half = SIZE / 2;
        for (int i = 0; i < half; i++) {
          DirectMemory.putByte(a.memory + i, (byte) (i * 31 + 7));
        }
        DirectMemory.fill(b.memory, SIZE, (byte) 0);
        runOne(a, WrOpcode.RDMA_WRITE, a.memory, b.memory + half, half, b.mr);
        for (int i = 0; i < half; i++) {
          assertEquals(
              (byte) (i * 31 + 7), DirectMemory.getByte(b.memory + half + i), "WRITE byte " + i);
        }
        runOne(a, WrOpcode.RDMA_READ, a.memory + half, b.memory + half, half, b.mr);
        for (int i = 0; i < half; i++) {
          assertEquals(
              (byte) (i * 31 + 7), DirectMemory.getByte(a.memory + half + i), "READ byte " + i);
        }
      }
    }
    ResourceSnapshot.assertNoLeaksSince(before, DEADLINE);
  }

  @Test
  void portFlapRaisesPortErrThenPortActive() throws Exception {
    String command = System.getProperty("vte.hardware.flapCommand");
    try (VerbsProvider provider = availableProvider()) {
      assumeTrue(
          command != null,
          "set -Dvte.hardware.flapCommand to a command that flaps port 1 of the first device");
      try (VerbsContext ctx = provider.open(provider.devices().get(0).name())) {
        ConcurrentLinkedQueue<AsyncEvent> events = new ConcurrentLinkedQueue<>();
        ctx.setAsyncEventHandler(events::add);
        Process flap = new ProcessBuilder("sh", "-c", command).inheritIO().start();
        Await.until(
            "PORT_ERR then PORT_ACTIVE on port 1",
            Duration.ofSeconds(120),
            () -> {
              List<AsyncEventType> seen =
                  events.stream().filter(e -> e.port() == 1).map(AsyncEvent::type).toList();
              int err = seen.indexOf(AsyncEventType.PORT_ERR);
              return err >= 0
                  && seen.subList(err, seen.size()).contains(AsyncEventType.PORT_ACTIVE);
            });
        assertEquals(0, flap.waitFor(), "flap command exit status");
        Await.until(
            "port 1 ACTIVE again", DEADLINE, () -> ctx.queryPort(1).state() == PortState.ACTIVE);
        assertTrue(events.stream().allMatch(e -> e.deviceName().equals(ctx.deviceName())));
      }
    }
  }
}
