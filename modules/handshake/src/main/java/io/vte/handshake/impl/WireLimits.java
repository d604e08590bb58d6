package io.vte.handshake.impl;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.WireFormat;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeValidator;
import java.io.IOException;

/**
 * A scan of a request's top-level wire bytes before it is parsed: repeated fields with more entries
 * than {@link HandshakeValidator#MAX_QPS} and length-delimited fields far longer than allowed are
 * rejected without building a message, so an absurd request costs no allocation beyond its bytes.
 * Limits are loose on purpose: near misses are parsed and named precisely by the validator.
 * Malformed bytes are left for the parser to report.
 */
public final class WireLimits {

  /** Most bytes of a name field: 256 chars of up to 4 UTF-8 bytes each. */
  private static final int NAME_BYTES = HandshakeValidator.MAX_NAME_LENGTH * 4;

  /** Most bytes of a small bytes field such as a GID (the validator then checks the exact size). */
  private static final int SMALL_BYTES = 64;

  /** Most bytes of an auth token: key id plus a few fixed-size fields. */
  private static final int AUTH_BYTES = NAME_BYTES + 128;

  private WireLimits() {}

  /**
   * @param type the request's message type
   * @param bytes the serialized request
   * @throws VteException INVALID_ARGUMENT naming the field and its size
   */
  public static void check(Descriptor type, byte[] bytes) {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    int[] counts = new int[32];
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        int number = WireFormat.getTagFieldNumber(tag);
        FieldDescriptor field = type.findFieldByNumber(number);
        if (field != null && field.isRepeated() && number < counts.length) {
          counts[number]++;
        }
        if (field != null
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int length = in.readRawVarint32();
          int limit = byteLimit(field);
          if (length > limit) {
            throw new VteException(
                ErrorCode.INVALID_ARGUMENT,
                field.getName()
                    + " must be <= "
                    + limit
                    + " bytes: "
                    + Integer.toUnsignedString(length)
                    + " bytes");
          }
          in.skipRawBytes(length);
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException malformed) {
      // The parser reports malformed input with its own message.
      return;
    }
    for (int number = 1; number < counts.length; number++) {
      if (counts[number] > HandshakeValidator.MAX_QPS) {
        throw new VteException(
            ErrorCode.INVALID_ARGUMENT,
            type.findFieldByNumber(number).getName()
                + " count must be 1.."
                + HandshakeValidator.MAX_QPS
                + ": "
                + counts[number]);
      }
    }
  }

  private static int byteLimit(FieldDescriptor field) {
    switch (field.getType()) {
      case MESSAGE:
        return field.getMessageType().getName().equals("Auth") ? AUTH_BYTES : NAME_BYTES;
      case BYTES:
        return field.getName().equals("payload")
            ? HandshakeValidator.MAX_NOTIFY_PAYLOAD
            : SMALL_BYTES;
      default:
        return NAME_BYTES;
    }
  }
}
