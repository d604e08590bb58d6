package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.SegmentHandles;
import io.vte.handshake.HandshakeClientOptions;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Remote access refused on the responder: a requester whose segment handle lies (forged from the
 * real descriptor, so its own range checks pass) gets a typed error and the target memory is
 * untouched.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class RemoteAccessTest {

  private static final int REGION = 8 << 20;
  private static final int GUARD = 1 << 20;
  private static final int LENGTH = 256 << 10;

  private LocalEngines local;
  private TransferEngine requester;
  private TransferEngine responder;
  private RegisteredBuffer source;
  private RegisteredBuffer target;
  private long targetMemory;
  private HandshakeClientPool clients;

  @BeforeEach
  void start() {
    local = new LocalEngines();
    requester = local.start(LocalEngines.options("req", 2, null, 0));
    responder = local.start(LocalEngines.options("rsp", 6, null, 0));
    source = local.register(requester, REGION);
    Pattern.fill(source.address(), REGION, 11);
    targetMemory = local.allocate(REGION + GUARD);
    Pattern.fill(targetMemory, REGION + GUARD, 22);
    target = Await.result(responder.register(targetMemory, REGION, "cpu:0"), LocalEngines.WAIT);
    clients = HandshakeClientPool.create(local.vertx(), new HandshakeClientOptions());
  }

  @AfterEach
  void stop() {
    try {
      Await.result(clients.close(), LocalEngines.WAIT);
    } finally {
      local.close();
    }
  }

  /**
   * The responder's real descriptor, rewritten by {@code forge}, as a handle of the requester
   * engine.
   */
  private SegmentHandle forged(UnaryOperator<BufferDesc> forge) {
    SegmentDescriptor real =
        Await.result(
            clients.getSegment(
                responder.serverName(),
                GetSegmentRequest.getDefaultInstance(),
                Duration.ofSeconds(10)),
            LocalEngines.WAIT);
    SegmentDescriptor.Builder b = real.toBuilder();
    for (int i = 0; i < b.getBuffersCount(); i++) {
      b.setBuffers(i, forge.apply(b.getBuffers(i)));
    }
    return SegmentHandles.of(responder.serverName(), b.build().toByteArray());
  }

  private RequestResult transfer(TransferRequest request) {
    BatchResult r =
        Await.result(
            requester
                .submit(List.of(request), new TransferOptions().setDeadline(Duration.ofSeconds(20)))
                .result(),
            LocalEngines.WAIT);
    return r.requests().get(0);
  }

  /** Runs a refused access and checks the typed error and both memories. */
  private void assertRefused(
      String what,
      TransferRequest request,
      long checkedAddress,
      int checkedLength,
      ErrorCode... expected) {
    long targetBefore = Pattern.crc(checkedAddress, checkedLength);
    long sourceBefore = Pattern.crc(source.address(), REGION);
    RequestResult r = transfer(request);
    assertEquals(RequestStatus.FAILED, r.status(), what + ": " + r);
    assertNotNull(r.cause(), what + ": a cause");
    assertTrue(
        List.of(expected).contains(r.cause().code()),
        what
            + ": typed error "
            + r.cause().code()
            + " ("
            + r.cause().getMessage()
            + "), expected one of "
            + List.of(expected));
    assertEquals(
        targetBefore,
        Pattern.crc(checkedAddress, checkedLength),
        what + ": target memory untouched");
    assertEquals(
        sourceBefore, Pattern.crc(source.address(), REGION), what + ": requester memory untouched");
    ReliabilityReport.record(
        new ScenarioFigures(
            "access: " + what,
            1,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            "refused with " + r.cause().code()));
  }

  @Test
  void wrongRkeyIsRefusedForWriteAndRead() {
    SegmentHandle lie =
        forged(
            b -> {
              BufferDesc.Builder x = b.toBuilder().clearRkeys();
              b.getRkeysList().forEach(k -> x.addRkeys(k ^ 0x5A5A5A5A));
              return x.build();
            });
    assertRefused(
        "wrong rkey, WRITE",
        TransferRequest.write(source, 0, lie, target.address(), LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    assertRefused(
        "wrong rkey, READ",
        TransferRequest.read(source, 0, lie, target.address(), LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    sanity();
  }

  @Test
  void rangePastTheEndOfTheRegionIsRefused() {
    SegmentHandle lie = forged(b -> b.toBuilder().setLength(b.getLength() + GUARD).build());
    assertRefused(
        "range past MR end, WRITE",
        TransferRequest.write(source, 0, lie, target.address() + REGION, LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    assertRefused(
        "range past MR end, READ",
        TransferRequest.read(source, 0, lie, target.address() + REGION, LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    assertRefused(
        "range straddling MR end, WRITE",
        TransferRequest.write(source, 0, lie, target.address() + REGION - LENGTH / 2, LENGTH),
        targetMemory + REGION,
        GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    sanity();
  }

  @Test
  void accessAfterUnregisterIsRefused() {
    SegmentHandle before = forged(UnaryOperator.identity());
    SegmentHandle opened =
        Await.result(requester.openSegment(responder.serverName()), LocalEngines.WAIT);
    assertEquals(
        RequestStatus.COMPLETED,
        transfer(TransferRequest.write(source, 0, opened, target.address(), LENGTH)).status(),
        "the region is writable while registered");
    Await.result(responder.unregister(target), LocalEngines.WAIT);
    assertRefused(
        "after unregister, WRITE (stale handle)",
        TransferRequest.write(source, 0, before, target.address(), LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    assertRefused(
        "after unregister, READ (stale handle)",
        TransferRequest.read(source, 0, before, target.address(), LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED);
    assertRefused(
        "after unregister, WRITE (opened handle)",
        TransferRequest.write(source, 0, opened, target.address(), LENGTH),
        targetMemory,
        REGION + GUARD,
        ErrorCode.REMOTE_ACCESS_DENIED,
        ErrorCode.OUT_OF_RANGE);
  }

  /** The same engines still move data after refusals: the refusals were not a broken setup. */
  private void sanity() {
    SegmentHandle real =
        Await.result(requester.openSegment(responder.serverName()), LocalEngines.WAIT);
    RequestResult r = transfer(TransferRequest.write(source, 0, real, target.address(), LENGTH));
    assertEquals(RequestStatus.COMPLETED, r.status(), r.toString());
    assertEquals(Pattern.crc(source.address(), LENGTH), Pattern.crc(targetMemory, LENGTH));
  }
}
