package io.vte.mooncake;

import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;

/**
 * The 24-byte request header of Mooncake's TCP data plane: u64 size, u64 target address, u8 opcode
 * and 7 bytes of padding, little-endian. Opcode READ is 0, WRITE 1; bit {@link #V2_FLAG} asks for
 * protocol version 2 (status frames, see {@link StatusFrame}).
 *
 * @param size payload bytes
 * @param address absolute virtual address in the target process
 * @param opcode the raw opcode byte, version flag included
 */
record DataHeader(long size, long address, int opcode) {

  /** Bytes of a header on the wire. */
  static final int BYTES = 24;

  /** Opcode of a READ. */
  static final int READ = 0;

  /** Opcode of a WRITE. */
  static final int WRITE = 1;

  /** Set in the opcode byte when the initiator speaks protocol version 2. */
  static final int V2_FLAG = 0x80;

  /**
   * @return a header for a request of this kind
   */
  static DataHeader of(boolean write, long address, long size, boolean v2) {
    return new DataHeader(size, address, (write ? WRITE : READ) | (v2 ? V2_FLAG : 0));
  }

  /** Reads a header from {@link #BYTES} bytes of a little-endian {@code bytes} from index 0. */
  static DataHeader decode(ByteBuffer bytes) {
    return new DataHeader(bytes.getLong(0), bytes.getLong(8), bytes.get(16) & 0xFF);
  }

  /**
   * @return whether the initiator asked for version 2
   */
  boolean v2() {
    return (opcode & V2_FLAG) != 0;
  }

  /**
   * @return the opcode without the version flag: {@link #READ}, {@link #WRITE} or anything else
   */
  int kind() {
    return opcode & ~V2_FLAG;
  }

  /** Appends the 24 wire bytes (padding zeroed) to {@code out}. */
  Buffer encodeTo(Buffer out) {
    return out.appendLongLE(size).appendLongLE(address).appendByte((byte) opcode).appendBytes(PAD);
  }

  private static final byte[] PAD = new byte[7];
}
