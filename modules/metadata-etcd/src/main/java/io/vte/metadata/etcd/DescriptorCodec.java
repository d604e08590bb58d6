package io.vte.metadata.etcd;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.impl.DescriptorValidator;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Segment descriptors as stored in a metadata backend: protobuf JSON ({@link JsonFormat}), readable
 * with {@code etcdctl get}. Decoding checks what a peer relies on ({@link DescriptorValidator}) and
 * names the source of a bad descriptor.
 */
public final class DescriptorCodec {

  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().omittingInsignificantWhitespace();
  // Unknown fields are accepted so that newer nodes may add some.
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

  private DescriptorCodec() {}

  /**
   * @param descriptor the descriptor
   * @return its JSON, UTF-8
   */
  public static byte[] encode(SegmentDescriptor descriptor) {
    try {
      return PRINTER.print(descriptor).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException e) {
      throw new VteException(
          ErrorCode.INTERNAL, "cannot print descriptor " + descriptor.getName(), e);
    }
  }

  /**
   * Parses and validates a stored descriptor.
   *
   * @param source where it came from (the etcd key), named in errors
   * @param expectedName the segment name it is stored under
   * @param json the stored bytes
   * @return the descriptor
   * @throws VteException PROTOCOL_ERROR naming the source and the problem
   */
  public static SegmentDescriptor decode(String source, String expectedName, byte[] json) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(json))
              .toString();
    } catch (CharacterCodingException e) {
      throw DescriptorValidator.bad(source, "not UTF-8 text");
    }
    SegmentDescriptor.Builder builder = SegmentDescriptor.newBuilder();
    try {
      PARSER.merge(text, builder);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw DescriptorValidator.bad(
          source, "not a segment descriptor in protobuf JSON (" + e.getMessage() + ")");
    }
    SegmentDescriptor descriptor = builder.build();
    DescriptorValidator.validate(source, descriptor);
    if (!descriptor.getName().equals(expectedName)) {
      throw DescriptorValidator.bad(
          source, "names segment '" + descriptor.getName() + "', expected '" + expectedName + "'");
    }
    return descriptor;
  }
}
