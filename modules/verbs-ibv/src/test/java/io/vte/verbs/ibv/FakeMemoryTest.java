package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.GcAwait;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Memory registration through ibv_reg_mr, its keys and its failures. */
@Tag("fake")
class FakeMemoryTest {

  private FakeRig rig;

  @BeforeEach
  void open() {
    FakeIbverbs.reset();
    rig = new FakeRig();
  }

  @AfterEach
  void close() {
    rig.close();
    FakeIbverbs.assertNothingLive();
  }

  @Test
  void registersTheWholeDirectBufferWithItsFlagsAndKeys() {
    ByteBuffer buf = ByteBuffer.allocateDirect(8192);
    buf.position(100).limit(200);
    MemoryRegion mr = rig.pd.registerMemory(buf, AccessFlags.ALL_REMOTE);
    Map<String, String> f = FakeIbverbs.fields(FakeIbverbs.lines("ibv_reg_mr").get(0));
    long address = DirectMemory.address(buf);
    assertEquals("0x" + Long.toHexString(address), f.get("addr"));
    assertEquals("8192", f.get("length"));
    assertEquals("0x" + Long.toHexString(address), f.get("iova"));
    assertEquals("0x7", f.get("access"));
    assertEquals(address, mr.address());
    assertEquals(8192, mr.length());
    assertEquals(AccessFlags.ALL_REMOTE, mr.accessFlags());
    assertNotEquals(mr.lkey(), mr.rkey());
    assertEquals(1, FakeIbverbs.count("mr"));
    mr.close();
    mr.close();
    assertEquals(0, FakeIbverbs.count("mr"));
    assertEquals(1, FakeIbverbs.lines("ibv_dereg_mr").size(), "deregistered once");
  }

  @Test
  void aRegisteredByteBufferStaysReachableUntilDeregistration() {
    List<WeakReference<ByteBuffer>> dropped = new ArrayList<>();
    MemoryRegion mr = registerAndDrop(dropped);
    WeakReference<ByteBuffer> registered = dropped.get(0);
    WeakReference<Object> control = new WeakReference<>(ByteBuffer.allocateDirect(4096));
    collectUntilCleared(control);
    assertNotNull(registered.get(), "the GC freed a buffer the NIC may still DMA into");
    mr.close();
    collectUntilCleared(registered);
  }

  /** Registers a fresh buffer and keeps only a weak reference to it. */
  private MemoryRegion registerAndDrop(List<WeakReference<ByteBuffer>> out) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    out.add(new WeakReference<>(buffer));
    return rig.pd.registerMemory(buffer, AccessFlags.ALL_REMOTE);
  }

  private static void collectUntilCleared(WeakReference<?> ref) {
    GcAwait.untilCleared(ref, Duration.ofSeconds(20));
  }

  @Test
  void enomemAtRegistrationIsATypedErrorNamingTheRange() {
    long address = DirectMemory.allocate(4096);
    try {
      FakeIbverbs.failNext("ibv_reg_mr", 12, -1);
      VerbsException e =
          assertThrows(
              VerbsException.class,
              () -> rig.pd.registerMemory(address, 4096, AccessFlags.LOCAL_WRITE));
      assertEquals(VerbsError.NO_MEMORY, e.error());
      String msg = e.getMessage();
      assertTrue(msg.contains("ibv_reg_mr failed with ENOMEM (errno 12)"), msg);
      assertTrue(msg.contains("address 0x" + Long.toHexString(address) + " length 4096"), msg);
      assertEquals(0, FakeIbverbs.count("mr"));
      MemoryRegion retry = rig.pd.registerMemory(address, 4096, AccessFlags.LOCAL_WRITE);
      retry.close();
    } finally {
      DirectMemory.free(address);
    }
  }

  @Test
  void badArgumentsAreRejectedBeforeTheDriver() {
    FakeIbverbs.clearLog();
    assertEquals(
        VerbsError.INVALID_ARGUMENT,
        assertThrows(
                VerbsException.class,
                () -> rig.pd.registerMemory(ByteBuffer.allocate(64), AccessFlags.LOCAL_WRITE))
            .error());
    assertEquals(
        VerbsError.INVALID_ARGUMENT,
        assertThrows(
                VerbsException.class, () -> rig.pd.registerMemory(0, 64, AccessFlags.LOCAL_WRITE))
            .error());
    assertEquals(
        VerbsError.INVALID_ARGUMENT,
        assertThrows(
                VerbsException.class,
                () -> rig.pd.registerMemory(0x1000, 0, AccessFlags.LOCAL_WRITE))
            .error());
    VerbsException flags =
        assertThrows(
            VerbsException.class,
            () -> rig.pd.registerMemory(ByteBuffer.allocateDirect(64), 0x100));
    assertTrue(flags.getMessage().contains("0x100"), flags.getMessage());
    assertEquals("", FakeIbverbs.log());
  }

  @Test
  void pdAndCqFailuresAreTyped() {
    FakeIbverbs.failNext("ibv_alloc_pd", 12, -1);
    assertEquals(
        VerbsError.NO_MEMORY, assertThrows(VerbsException.class, rig.context::allocPd).error());
    FakeIbverbs.failNext("ibv_create_cq", 22, -1);
    // twice the capacity asked (READ-back verify): room for both halves' flushes
    VerbsException cq = assertThrows(VerbsException.class, () -> rig.context.createCq(1 << 20));
    assertEquals(VerbsError.INVALID_ARGUMENT, cq.error());
    assertTrue(cq.getMessage().contains("capacity 2097152"), cq.getMessage());
    assertEquals(
        VerbsError.INVALID_ARGUMENT,
        assertThrows(VerbsException.class, () -> rig.context.createCq(0)).error());
  }
}
