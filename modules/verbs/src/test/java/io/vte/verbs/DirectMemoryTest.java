package io.vte.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class DirectMemoryTest {

  @Test
  void wrapAndRetargetSeeTheNativeMemory() {
    long a = DirectMemory.allocate(64);
    long b = DirectMemory.allocate(16);
    try {
      DirectMemory.fill(a, 64, (byte) 7);
      DirectMemory.fill(b, 16, (byte) 9);
      ByteBuffer view = DirectMemory.wrap(a, 64);
      assertEquals(64, view.remaining());
      assertEquals(a, DirectMemory.address(view));
      assertEquals(7, view.get(63));
      view.put(0, (byte) 42);
      assertEquals(42, DirectMemory.getByte(a));

      view.position(10).mark();
      DirectMemory.retarget(view, b, 16);
      assertEquals(0, view.position());
      assertEquals(16, view.limit());
      assertEquals(16, view.capacity());
      assertEquals(9, view.get(15));
      assertThrows(java.nio.InvalidMarkException.class, view::reset);
      assertThrows(IndexOutOfBoundsException.class, () -> view.get(16));
    } finally {
      DirectMemory.free(a);
      DirectMemory.free(b);
    }
  }

  @Test
  void viewsOfOneAddressAreIndependentObjects() {
    long a = DirectMemory.allocate(8);
    try {
      ByteBuffer v1 = DirectMemory.wrap(a, 8);
      ByteBuffer v2 = DirectMemory.wrap(a, 4);
      v1.position(3);
      assertEquals(0, v2.position());
      assertEquals(4, v2.limit());
    } finally {
      DirectMemory.free(a);
    }
  }

  @Test
  void badArgumentsAreTyped() {
    VerbsException e = assertThrows(VerbsException.class, () -> DirectMemory.wrap(0, 8));
    assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
    assertThrows(VerbsException.class, () -> DirectMemory.address(ByteBuffer.allocate(4)));
    assertThrows(VerbsException.class, () -> DirectMemory.allocate(0));
  }
}
