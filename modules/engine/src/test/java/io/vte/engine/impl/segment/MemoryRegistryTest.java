package io.vte.engine.impl.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.testkit.GcAwait;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoryRegistryTest {

  private final FakeDeviceMemory devices = new FakeDeviceMemory(3);
  private final AtomicInteger changes = new AtomicInteger();
  private final MemoryRegistry registry = new MemoryRegistry(devices, changes::incrementAndGet);

  @Test
  void registersOnEveryDeviceWithDistinctKeys() {
    LocalBuffer b = registry.register(0x10000, 4096, "cpu:0");
    assertEquals(3, b.deviceCount());
    assertNotEquals(b.lkey(0), b.lkey(1));
    assertNotEquals(b.rkey(1), b.rkey(2));
    assertEquals(3, devices.openRegions());
    assertEquals(1, changes.get());
  }

  @Test
  void aRegisteredByteBufferIsHeldUntilUnregistered() {
    List<WeakReference<ByteBuffer>> dropped = new ArrayList<>();
    LocalBuffer b = registerAndDrop(dropped);
    WeakReference<Object> control = new WeakReference<>(ByteBuffer.allocateDirect(4096));
    collectUntilCleared(control);
    assertNotNull(dropped.get(0).get(), "the GC freed a registered buffer");
    registry.unregister(b);
    collectUntilCleared(dropped.get(0));
  }

  private LocalBuffer registerAndDrop(List<WeakReference<ByteBuffer>> out) {
    ByteBuffer memory = ByteBuffer.allocateDirect(4096);
    out.add(new WeakReference<>(memory));
    return registry.register(memory, "cpu:0");
  }

  private static void collectUntilCleared(WeakReference<?> ref) {
    GcAwait.untilCleared(ref, Duration.ofSeconds(20));
  }

  @Test
  void overlapsAreRejectedAndAdjacentRangesAccepted() {
    registry.register(0x10000, 0x1000, "a");
    for (long[] r :
        new long[][] {
          {0x10000, 0x1000}, {0xF000, 0x1001}, {0x10FFF, 1}, {0x10800, 0x10}, {0xF000, 0x3000}
        }) {
      VteException e = assertThrows(VteException.class, () -> registry.register(r[0], r[1], "b"));
      assertEquals(ErrorCode.OVERLAPPING_REGISTRATION, e.code());
      assertTrue(e.getMessage().contains(Long.toHexString(r[0])), e.getMessage());
    }
    registry.register(0xF000, 0x1000, "below");
    registry.register(0x11000, 0x1000, "above");
    assertEquals(3, registry.snapshot().size());
    assertEquals(9, devices.openRegions(), "a rejected registration leaves no region behind");
  }

  @Test
  void badArgumentsAreTyped() {
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        assertThrows(VteException.class, () -> registry.register(0, 10, "x")).code());
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        assertThrows(VteException.class, () -> registry.register(100, 0, "x")).code());
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        assertThrows(VteException.class, () -> registry.register(Long.MAX_VALUE - 5, 10, "x"))
            .code());
  }

  @Test
  void aDeviceRefusalIsTypedNamesItsCauseAndLeavesNoRegion() {
    for (VerbsError refusal : VerbsError.values()) {
      FakeDeviceMemory accepting = new FakeDeviceMemory(2);
      MemoryRegistry refusing =
          new MemoryRegistry(
              new DeviceMemory() {
                @Override
                public int deviceCount() {
                  return accepting.deviceCount();
                }

                @Override
                public MemoryRegion register(
                    int deviceIndex, long address, long length, int accessFlags) {
                  if (deviceIndex == 1) {
                    throw new VerbsException(refusal, "EFAULT at 0x1000 (---p)");
                  }
                  return accepting.register(deviceIndex, address, length, accessFlags);
                }

                @Override
                public void deregister(int deviceIndex, MemoryRegion region) {
                  accepting.deregister(deviceIndex, region);
                }
              },
              changes::incrementAndGet);
      VteException e = assertThrows(VteException.class, () -> refusing.register(0x1000, 4096, "x"));
      ErrorCode expected =
          refusal == VerbsError.INVALID_ARGUMENT || refusal == VerbsError.ACCESS
              ? ErrorCode.INVALID_ARGUMENT
              : ErrorCode.DEVICE_UNAVAILABLE;
      assertEquals(expected, e.code(), refusal.name());
      assertTrue(e.getMessage().contains("0x1000+4096"), e.getMessage());
      assertTrue(e.getMessage().contains("EFAULT at 0x1000 (---p)"), e.getMessage());
      assertNull(refusing.find(0x1000, 1), "nothing registered after a refusal");
      assertEquals(0, accepting.openRegions(), "device 0's region is closed again");
    }
    assertEquals(0, changes.get());
  }

  @Test
  void locationMustHaveOneTo256Characters() {
    String tooLong = "x".repeat(257);
    for (String bad : new String[] {null, "", tooLong, "y".repeat(900_000)}) {
      VteException e =
          assertThrows(VteException.class, () -> registry.register(0x30000, 0x1000, bad));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("location"), e.getMessage());
      assertTrue(
          e.getMessage().length() < 400,
          "the value is shortened in the message: " + e.getMessage().length());
    }
    assertTrue(
        assertThrows(VteException.class, () -> registry.register(0x30000, 0x1000, tooLong))
            .getMessage()
            .contains("257 chars"),
        "the message names the bad length");
    assertEquals(0, devices.openRegions(), "a rejected registration registers nothing");
    assertEquals(0, changes.get(), "and publishes nothing");
    assertEquals("z".repeat(256), registry.register(0x30000, 0x1000, "z".repeat(256)).location());
    assertEquals("c", registry.register(0x40000, 0x1000, "c").location());
  }

  @Test
  void findLooksUpContainedRangesOnly() {
    LocalBuffer b = registry.register(0x20000, 0x1000, "a");
    assertSame(b, registry.find(0x20000, 0x1000));
    assertSame(b, registry.find(0x20FFF, 1));
    assertNull(registry.find(0x20FFF, 2));
    assertNull(registry.find(0x1FFFF, 1));
    assertNull(registry.find(0x30000, 1));
  }

  @Test
  void unregisterClosesRegionsOnceAndRejectsStrangers() {
    LocalBuffer b = registry.register(0x20000, 0x1000, "a");
    registry.unregister(b);
    assertFalse(b.isRegistered());
    assertEquals(0, devices.openRegions());
    assertFalse(registry.owns(b));
    assertEquals(
        ErrorCode.NOT_REGISTERED,
        assertThrows(VteException.class, () -> registry.unregister(b)).code());
    assertEquals(
        ErrorCode.NOT_REGISTERED,
        assertThrows(VteException.class, () -> registry.unregister("x")).code());
    registry.register(0x20000, 0x1000, "again");
  }

  @Test
  void concurrentOverlappingRegistrationsHaveOneWinnerEach() throws Exception {
    int threads = 4;
    for (int round = 0; round < 200; round++) {
      MemoryRegistry r = new MemoryRegistry(new FakeDeviceMemory(2), () -> {});
      CyclicBarrier barrier = new CyclicBarrier(threads);
      AtomicInteger wins = new AtomicInteger();
      Thread[] ts = new Thread[threads];
      for (int t = 0; t < threads; t++) {
        long start = 0x100000 + t * 0x800L;
        ts[t] =
            new Thread(
                () -> {
                  try {
                    barrier.await();
                    r.register(start, 0x1000, "t");
                    wins.incrementAndGet();
                  } catch (VteException e) {
                    assertEquals(ErrorCode.OVERLAPPING_REGISTRATION, e.code());
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
        ts[t].start();
      }
      for (Thread t : ts) {
        t.join();
      }
      long[] starts = r.snapshot().stream().mapToLong(LocalBuffer::address).toArray();
      for (int i = 1; i < starts.length; i++) {
        assertTrue(starts[i] - starts[i - 1] >= 0x1000, "registrations overlap in round " + round);
      }
      assertEquals(wins.get(), starts.length);
      assertTrue(wins.get() >= 1 && wins.get() <= 2);
    }
  }
}
