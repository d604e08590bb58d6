package io.vte.mooncake;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * One frame of Mooncake's P2P handshake: u64 length (the sender's byte order, little-endian on
 * every platform Mooncake runs on; it counts the type byte), one type byte, then JSON. Each
 * connection carries one request and its reply, which repeats the type.
 *
 * @param type the frame's type
 * @param body the JSON body
 */
record HandshakeFrame(HandshakeFrame.Type type, JsonObject body) {

  /** The type byte of a Mooncake P2P handshake frame. */
  enum Type {
    /** RDMA endpoint setup: refused by a VTE target, which serves TCP only. */
    CONNECTION(0),
    /** Asks for the segment descriptor. */
    METADATA(1),
    /** Carries a notification ({@code name}, {@code notify_msg}). */
    NOTIFY(2),
    /** Liveness probe. */
    PROBE(3);

    final int code;

    Type(int code) {
      this.code = code;
    }

    /**
     * @return the type of {@code code}, or null when Mooncake defines none
     */
    static Type of(int code) {
      for (Type t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      return null;
    }
  }

  /** Mooncake's default limit on a frame's length (1 MiB). */
  static final int DEFAULT_MAX_LENGTH = 1 << 20;

  /**
   * @return the frame on the wire
   */
  Buffer encode() {
    Buffer json = body.toBuffer();
    return Buffer.buffer(9 + json.length())
        .appendLongLE(json.length() + 1L)
        .appendByte((byte) type.code)
        .appendBuffer(json);
  }

  /**
   * Reassembles one frame from the bytes of a connection, as they arrive. Every malformed input is
   * a {@link VteException} with {@link ErrorCode#PROTOCOL_ERROR} naming the bad value.
   */
  static final class Reader {
    private final int maxLength;
    private Buffer pending = Buffer.buffer();
    private long length = -1;
    private HandshakeFrame frame;

    /**
     * @param maxLength the largest length accepted
     */
    Reader(int maxLength) {
      this.maxLength = maxLength;
    }

    /**
     * Adds bytes.
     *
     * @return the frame once complete, else null
     * @throws VteException PROTOCOL_ERROR on a zero or oversized length, an unknown type, bad JSON
     *     or bytes after the frame
     */
    HandshakeFrame append(Buffer bytes) {
      if (frame != null) {
        throw protocol("bytes after the handshake frame: " + bytes.length());
      }
      pending.appendBuffer(bytes);
      if (length < 0 && pending.length() >= 8) {
        length = pending.getLongLE(0);
        if (length <= 0 || length > maxLength) {
          throw protocol(
              "handshake frame length "
                  + Long.toUnsignedString(length)
                  + " not in 1.."
                  + maxLength);
        }
      }
      if (length < 0 || pending.length() < 8 + length) {
        return null;
      }
      if (pending.length() > 8 + length) {
        throw protocol("bytes after the handshake frame: " + (pending.length() - 8 - length));
      }
      int code = pending.getUnsignedByte(8);
      Type type = Type.of(code);
      if (type == null) {
        throw protocol("unknown handshake frame type " + code);
      }
      try {
        frame = new HandshakeFrame(type, new JsonObject(pending.getBuffer(9, pending.length())));
      } catch (DecodeException | ClassCastException e) {
        throw protocol(
            "handshake frame of type " + type + " is not a JSON object: " + e.getMessage());
      }
      pending = null;
      return frame;
    }

    /**
     * @return bytes received of a frame not yet complete, for a message on a truncated frame
     */
    int received() {
      return pending == null ? 0 : pending.length();
    }
  }

  static VteException protocol(String message) {
    return new VteException(ErrorCode.PROTOCOL_ERROR, message);
  }
}
