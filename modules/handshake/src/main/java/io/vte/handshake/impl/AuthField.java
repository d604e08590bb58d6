package io.vte.handshake.impl;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.vte.handshake.proto.Auth;

/**
 * The {@code auth} field (number 15) every handshake request carries: read it, clear it, set it,
 * the same way for Connect, GetSegment and Notify.
 */
public final class AuthField {

  /** Field number of {@code auth} in every request message. */
  public static final int NUMBER = 15;

  private AuthField() {}

  /**
   * @param request a handshake request
   * @return its token, or null when it carries none
   */
  public static Auth of(Message request) {
    FieldDescriptor field = field(request);
    return request.hasField(field) ? (Auth) request.getField(field) : null;
  }

  /**
   * @param request a handshake request
   * @param <M> request type
   * @return the request without a token (the same object when it had none)
   */
  @SuppressWarnings("unchecked")
  public static <M extends Message> M cleared(M request) {
    FieldDescriptor field = field(request);
    return request.hasField(field) ? (M) request.toBuilder().clearField(field).build() : request;
  }

  /**
   * @param request a handshake request
   * @param token the token to carry
   * @param <M> request type
   * @return the request carrying the token
   */
  @SuppressWarnings("unchecked")
  public static <M extends Message> M with(M request, Auth token) {
    return (M) request.toBuilder().setField(field(request), token).build();
  }

  private static FieldDescriptor field(Message request) {
    FieldDescriptor field = request.getDescriptorForType().findFieldByNumber(NUMBER);
    if (field == null || field.getMessageType() != Auth.getDescriptor()) {
      throw new IllegalArgumentException(
          request.getDescriptorForType().getName() + " has no auth field");
    }
    return field;
  }
}
