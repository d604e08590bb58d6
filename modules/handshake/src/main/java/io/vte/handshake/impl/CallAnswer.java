package io.vte.handshake.impl;

import io.vertx.grpc.common.GrpcStatus;

/** How a server call is answered with an error, the same for unary and streaming calls. */
interface CallAnswer {

  /**
   * Ends the call with a status, unless it has ended already.
   *
   * @param status the gRPC status
   * @param message names the bad value or the cause
   */
  void fail(GrpcStatus status, String message);
}
