package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;

/**
 * The fixed 32-byte header that starts every soft-verbs frame on the wire, as a reusable mutable
 * holder (one per connection, so decoding allocates nothing).
 *
 * <p>Layout, big-endian: {@code magic u8 @0}, {@code opcode u8 @1}, {@code status u16 @2}, {@code
 * qpn u32 @4} (destination QP), {@code seq u32 @8}, {@code rkey u32 @12}, {@code raddr u64 @16},
 * {@code length u32 @24} (payload bytes that follow), {@code imm u32 @28}.
 *
 * <p>End-to-end integrity (version 3): a WRITE or READ_REQ whose {@code status} has {@link #CRC}
 * asks for a CRC32C check. A WRITE carries its payload's CRC32C, computed from the source memory,
 * in {@code imm}; the responder checks it over the destination after the copy and answers a
 * mismatch with a NAK of status {@link #CORRUPT}. A READ_RESP to such a READ has {@link #CRC} too,
 * and the CRC32C of the responder's source memory in {@code imm}; the requester checks its
 * destination after the copy.
 */
public final class FrameHeader {

  /** Header size in bytes. */
  public static final int SIZE = 32;

  /** First byte of every frame; anything else is a protocol error. */
  public static final byte MAGIC = (byte) 0x5E;

  /** Protocol version carried by HELLO in {@code raddr}. */
  public static final long VERSION = 3;

  /**
   * Status bit of a WRITE or READ_REQ (and of the READ_RESP that answers it): a CRC32C of the
   * payload's source memory travels in {@code imm}.
   */
  public static final int CRC = 1;

  /** Requester opens a connection to a QP: qpn = target QP, rkey = source QP, raddr = version. */
  public static final int HELLO = 1;

  /** RDMA WRITE request; payload follows. */
  public static final int WRITE = 2;

  /** RDMA WRITE with immediate; payload follows; consumes a RECV. */
  public static final int WRITE_IMM = 3;

  /** SEND request; payload follows; consumes a RECV. */
  public static final int SEND = 4;

  /** SEND with immediate; payload follows; consumes a RECV. */
  public static final int SEND_IMM = 5;

  /** RDMA READ request; no payload. */
  public static final int READ_REQ = 6;

  /**
   * Announces a batch: {@code length} bytes of frames (headers, each followed by its payload when
   * that is at most 16 KiB) follow, then the larger payloads of those frames, in order, back to
   * back.
   */
  public static final int BATCH = 7;

  /** Positive acknowledgement of request {@code seq}. */
  public static final int ACK = 16;

  /**
   * Negative acknowledgement of request {@code seq}; {@code status} is a WcStatus code or {@link
   * #RNR}.
   */
  public static final int NAK = 17;

  /** Response to READ_REQ {@code seq}; payload follows. */
  public static final int READ_RESP = 18;

  /** NAK status meaning receiver-not-ready (no RECV posted). */
  public static final int RNR = 0xffff;

  /**
   * NAK status meaning a request arrived out of sequence (one before it was lost): {@code seq} is
   * the request the responder expects next, and the requester resends from there.
   */
  public static final int SEQ_ERR = 0xfffe;

  /**
   * NAK status of a HELLO refused because the QP it names does not exist (destroyed, e.g. its
   * endpoint was evicted or closed idle): {@code qpn} is the requester's QP. The requester fails at
   * once with {@code REM_ABORT_ERR} instead of retrying until its ACK timeout runs out.
   */
  public static final int NO_QP = 0xfffd;

  /**
   * NAK status of a WRITE whose payload's CRC32C over the destination differs from the one it
   * carried. Not fatal: the request counts as executed (the responder expects the next one) and the
   * requester completes it with {@code INTEGRITY_ERR}, its QP staying in RTS.
   */
  public static final int CORRUPT = 0xfffc;

  public int opcode;
  public int status;
  public int qpn;
  public int seq;
  public int rkey;
  public long raddr;
  public int length;
  public int imm;

  /**
   * Decodes a header at an absolute index.
   *
   * @return false when the magic byte is wrong
   */
  public boolean decode(ByteBuffer buf, int at) {
    if (buf.get(at) != MAGIC) {
      return false;
    }
    opcode = buf.get(at + 1) & 0xff;
    status = buf.getShort(at + 2) & 0xffff;
    qpn = buf.getInt(at + 4);
    seq = buf.getInt(at + 8);
    rkey = buf.getInt(at + 12);
    raddr = buf.getLong(at + 16);
    length = buf.getInt(at + 24);
    imm = buf.getInt(at + 28);
    return true;
  }

  /** Encodes a header at the buffer's position and advances it. */
  public static void encode(
      ByteBuffer buf,
      int opcode,
      int status,
      int qpn,
      int seq,
      int rkey,
      long raddr,
      int length,
      int imm) {
    int at = buf.position();
    buf.put(at, MAGIC);
    buf.put(at + 1, (byte) opcode);
    buf.putShort(at + 2, (short) status);
    buf.putInt(at + 4, qpn);
    buf.putInt(at + 8, seq);
    buf.putInt(at + 12, rkey);
    buf.putLong(at + 16, raddr);
    buf.putInt(at + 24, length);
    buf.putInt(at + 28, imm);
    buf.position(at + SIZE);
  }

  /**
   * @return the header's opcode, destination QP, sequence and length, for logs and test messages
   */
  public String describe() {
    return "frame[op="
        + opcode
        + " qpn="
        + qpn
        + " seq="
        + seq
        + " len="
        + (length & 0xffffffffL)
        + "]";
  }

  /**
   * @return true for the opcodes a requester sends after its HELLO
   */
  public static boolean isRequest(int opcode) {
    return requestHasPayload(opcode) || opcode == READ_REQ;
  }

  /**
   * @return true for request opcodes that carry a payload
   */
  public static boolean requestHasPayload(int opcode) {
    return opcode == WRITE || opcode == WRITE_IMM || opcode == SEND || opcode == SEND_IMM;
  }

  /**
   * @param wrOpcode a send work request's {@link WrOpcode}
   * @return the request frame that carries it
   */
  public static int requestOpcode(int wrOpcode) {
    switch (wrOpcode) {
      case WrOpcode.RDMA_WRITE:
        return WRITE;
      case WrOpcode.RDMA_WRITE_WITH_IMM:
        return WRITE_IMM;
      case WrOpcode.SEND:
        return SEND;
      case WrOpcode.SEND_WITH_IMM:
        return SEND_IMM;
      default:
        return READ_REQ;
    }
  }
}
