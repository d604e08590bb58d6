package io.vte.handshake.impl;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;

/**
 * Sits in front of the gRPC server: a request without a {@code grpc-encoding} header is given
 * {@code identity}. Vert.x gRPC 5.0.7 throws from its deframer (and leaves the stream hanging) when
 * a frame is flagged compressed but the request named no encoding; with the header set, such a
 * frame decodes as plain bytes and fails validation like any other malformed message.
 */
public final class EncodingGuard implements Handler<HttpServerRequest> {

  private static final String GRPC_ENCODING = "grpc-encoding";

  private final Handler<HttpServerRequest> grpc;

  /**
   * @param grpc the gRPC server's request handler
   */
  public EncodingGuard(Handler<HttpServerRequest> grpc) {
    this.grpc = grpc;
  }

  @Override
  public void handle(HttpServerRequest request) {
    if (request.getHeader(GRPC_ENCODING) == null) {
      request.headers().set(GRPC_ENCODING, "identity");
    }
    grpc.handle(request);
  }
}
