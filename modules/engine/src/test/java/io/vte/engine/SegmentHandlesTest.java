package io.vte.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.SegmentHandle;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import org.junit.jupiter.api.Test;

/** A handle over a descriptor's wire form, and a clear error for bytes that are not one. */
class SegmentHandlesTest {

  @Test
  void aDescriptorsWireFormMakesAHandleOfItsName() {
    byte[] wire = SegmentDescriptor.newBuilder().setName("peer:1").build().toByteArray();
    SegmentHandle handle = SegmentHandles.of("peer:1", wire);
    assertEquals("peer:1", handle.name());
  }

  @Test
  void bytesThatAreNoDescriptorAreAnInvalidArgumentNamingTheSegment() {
    VteException e =
        assertThrows(
            VteException.class, () -> SegmentHandles.of("peer:1", new byte[] {(byte) 0xff, 1}));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("'peer:1'"), e.getMessage());
  }
}
