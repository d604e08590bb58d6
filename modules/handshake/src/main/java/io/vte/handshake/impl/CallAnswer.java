package io.vte.handshake.impl;

import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import io.vte.api.VteException;

/** How a server call is answered with an error, the same for unary and streaming calls. */
interface CallAnswer {

  /**
   * Ends the call with a status, unless it has ended already.
   *
   * @param status the gRPC status
   * @param message names the bad value or the cause
   */
  void fail(GrpcStatus status, String message);

  /**
   * Ends the call with the status matching a failure: a {@link VteException}'s code, a {@link
   * StatusException}'s status, else INTERNAL.
   *
   * @param failure what went wrong
   */
  default void failWith(Throwable failure) {
    if (failure instanceof VteException vte) {
      fail(StatusMapping.toStatus(vte.code()), vte.getMessage());
    } else if (failure instanceof StatusException status) {
      fail(status.status(), status.message());
    } else {
      fail(GrpcStatus.INTERNAL, "handler failed: " + failure);
    }
  }
}
