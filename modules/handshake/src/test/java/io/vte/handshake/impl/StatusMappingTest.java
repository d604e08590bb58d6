package io.vte.handshake.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.http.StreamResetException;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** The typed error a failed client call reports, for each way the call can fail. */
class StatusMappingTest {

  private static final String CALL = "Connect to 10.0.0.2:7000";

  @Test
  void aStreamOpenedOnAConnectionTheDeadPeerClosedIsPeerUnreachable() {
    // What Netty throws when a call is started on an HTTP/2 connection that has just closed (seen
    // when the owner of a segment was killed while writes to it were in flight).
    Http2Exception closed =
        Http2Exception.connectionError(
            Http2Error.PROTOCOL_ERROR,
            "Attempted to create stream id 3 after connection was closed");
    VteException e = StatusMapping.fromFailure(closed, CALL);
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains(CALL), e.getMessage());
    assertSame(closed, e.getCause());
  }

  @Test
  void aRefusedConnectionAndAResetStreamArePeerUnreachable() {
    assertEquals(
        ErrorCode.PEER_UNREACHABLE,
        StatusMapping.fromFailure(new ConnectException("Connection refused"), CALL).code());
    assertEquals(
        ErrorCode.PEER_UNREACHABLE,
        StatusMapping.fromFailure(new StreamResetException(8), CALL).code());
  }

  @Test
  void aFailureOfThisSideStaysInternalAndATypedOneIsKept() {
    VteException internal = StatusMapping.fromFailure(new IllegalStateException("bug"), CALL);
    assertEquals(ErrorCode.INTERNAL, internal.code());
    assertTrue(internal.getMessage().contains("bug"), internal.getMessage());
    VteException typed = new VteException(ErrorCode.PERMISSION_DENIED, "no");
    assertSame(typed, StatusMapping.fromFailure(typed, CALL));
  }
}
