package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The error codes the public API's javadoc promises, for inputs that used to get others. */
@ExtendWith(BlockedThreadGuard.class)
class EngineErrorCodesTest {

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private VteException creationFailure(List<String> devices) {
    Vertx vertx = Vertx.vertx();
    fx.vertxes.add(vertx);
    return (VteException)
        Await.failure(
            TransferEngine.create(
                vertx, new EngineOptions().setDevices(devices).setRpcHost("127.0.0.1")),
            WAIT);
  }

  @Test
  void aDeviceHostThatDoesNotResolveIsAConfigurationErrorNamingTheField() {
    VteException e = creationFailure(List.of("d0@127.0.0.1", "d1@no-such-host.invalid"));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code(), e.toString());
    assertTrue(
        e.getMessage().contains("'devices'") && e.getMessage().contains("no-such-host.invalid"),
        e.getMessage());
  }

  @Test
  void aDeviceNamedTwiceIsAConfigurationErrorNamingTheFieldAndTheName() {
    VteException e = creationFailure(List.of("twin@127.0.0.1", "twin@127.0.0.2"));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code(), e.toString());
    assertTrue(
        e.getMessage().contains("'devices'") && e.getMessage().contains("'twin'"), e.getMessage());
  }

  @Test
  void unregisteringNullIsAnInvalidArgument() {
    TransferEngine a = fx.start(1, 1);
    VteException e = (VteException) Await.failure(a.unregister(null), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.toString());
  }

  @Test
  void aForeignSegmentHandleIsRefusedByName() {
    TransferEngine a = fx.start(1, 1);
    RegisteredBuffer local = fx.register(a, 4096, 1);
    SegmentHandle foreign =
        new SegmentHandle() {
          @Override
          public String name() {
            return "lookalike";
          }

          @Override
          public String serverName() {
            return "127.0.0.1:9";
          }

          @Override
          public long version() {
            return 1;
          }

          @Override
          public List<SegmentDevice> devices() {
            return List.of(new SegmentDevice("x", true));
          }

          @Override
          public List<SegmentBuffer> buffers() {
            return List.of();
          }
        };
    Future<?> result =
        a.submit(
                List.of(TransferRequest.write(local, 0, foreign, 0x1000, 64)),
                new TransferOptions())
            .result();
    VteException e = (VteException) Await.failure(result, WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(
        e.getMessage().contains("'lookalike'") && e.getMessage().contains("127.0.0.1:9"),
        e.getMessage());
    assertFalse(
        e.getMessage().contains(Integer.toHexString(System.identityHashCode(foreign))),
        "no object identity: " + e.getMessage());
  }
}
