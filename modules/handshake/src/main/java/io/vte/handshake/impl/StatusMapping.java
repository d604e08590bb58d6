package io.vte.handshake.impl;

import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.VertxException;
import io.vertx.core.http.StreamResetException;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcErrorException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.InvalidMessageException;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * Translates between VTE error codes and gRPC statuses, and client-side failures to typed errors.
 */
public final class StatusMapping {

  private StatusMapping() {}

  /**
   * @param code a handler's failure code
   * @return the gRPC status a server answers with
   */
  public static GrpcStatus toStatus(ErrorCode code) {
    switch (code) {
      case INVALID_ARGUMENT:
      case OUT_OF_RANGE:
        return GrpcStatus.INVALID_ARGUMENT;
      case SEGMENT_NOT_FOUND:
        return GrpcStatus.NOT_FOUND;
      case PERMISSION_DENIED:
        return GrpcStatus.PERMISSION_DENIED;
      case ENGINE_CLOSED:
      case METADATA_UNAVAILABLE:
        return GrpcStatus.UNAVAILABLE;
      case TIMED_OUT:
        return GrpcStatus.DEADLINE_EXCEEDED;
      default:
        return GrpcStatus.INTERNAL;
    }
  }

  /**
   * @param status a non-OK status a server answered with
   * @param message its status message, may be null
   * @param call what was called, e.g. {@code "Connect to host:port"}
   * @return the typed error a client reports
   */
  public static VteException fromStatus(GrpcStatus status, String message, String call) {
    String text =
        call
            + " failed with "
            + status.name()
            + (message == null || message.isEmpty() ? "" : ": " + message);
    return new VteException(codeOf(status), text);
  }

  /**
   * @param status a gRPC status other than OK
   * @return the matching VTE code
   */
  public static ErrorCode codeOf(GrpcStatus status) {
    switch (status) {
      case INVALID_ARGUMENT:
      case OUT_OF_RANGE:
        return ErrorCode.INVALID_ARGUMENT;
      case NOT_FOUND:
        return ErrorCode.SEGMENT_NOT_FOUND;
      case PERMISSION_DENIED:
      case UNAUTHENTICATED:
        return ErrorCode.PERMISSION_DENIED;
      case DEADLINE_EXCEEDED:
        return ErrorCode.TIMED_OUT;
      // A peer that is down, closing or out of resources cannot serve this call now.
      case UNAVAILABLE:
      case RESOURCE_EXHAUSTED:
      case CANCELLED:
      case ABORTED:
        return ErrorCode.PEER_UNREACHABLE;
      case UNIMPLEMENTED:
      case DATA_LOSS:
        return ErrorCode.PROTOCOL_ERROR;
      default:
        return ErrorCode.INTERNAL;
    }
  }

  /**
   * @param failure why a client call failed
   * @param call what was called, e.g. {@code "Connect to host:port"}
   * @return the typed error a client reports
   */
  public static VteException fromFailure(Throwable failure, String call) {
    if (failure instanceof VteException vte) {
      return vte;
    }
    if (failure instanceof InvalidStatusException invalid) {
      return fromStatus(invalid.actualStatus(), null, call);
    }
    if (failure instanceof GrpcErrorException grpc) {
      return new VteException(codeOf(grpc.status()), call + " was reset: " + grpc.error(), failure);
    }
    if (failure instanceof StreamResetException reset) {
      return new VteException(
          ErrorCode.PEER_UNREACHABLE,
          call + " was reset by the peer (code " + reset.getCode() + ")",
          failure);
    }
    if (failure instanceof InvalidMessageException || failure instanceof CodecException) {
      return new VteException(
          ErrorCode.PROTOCOL_ERROR,
          call + " got a malformed reply: " + failure.getMessage(),
          failure);
    }
    if (failure instanceof SSLException || failure.getCause() instanceof SSLException) {
      return new VteException(
          ErrorCode.PEER_UNREACHABLE,
          call + " failed the TLS handshake: " + failure.getMessage(),
          failure);
    }
    // An HTTP/2 failure of the connection itself (e.g. a stream opened on a connection the dead
    // peer's side already closed) says nothing about the call: the peer is not reachable over it.
    if (failure instanceof IOException
        || failure instanceof VertxException
        || failure instanceof Http2Exception) {
      return new VteException(
          ErrorCode.PEER_UNREACHABLE, call + " could not reach the peer: " + failure, failure);
    }
    return new VteException(ErrorCode.INTERNAL, call + " failed: " + failure, failure);
  }
}
