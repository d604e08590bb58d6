package io.vte.verbs.soft;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.QueuePairs;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: a soft provider with devices, PDs, CQs and connected QP pairs, plus completion
 * waits.
 */
final class Fabric implements AutoCloseable {

  /** One polled completion. */
  record Wc(long wrId, int status, int opcode, int byteLen, int qpNum, int imm) {}

  /** Short timeouts so failure tests finish fast: 4.096us * 2^15 = 134 ms, 2 retries. */
  static final RtsAttributes FAST = new RtsAttributes(0, 15, 2, 0);

  /** For tests that move a lot of data on a busy machine: 4.096 us x 2^19 = 2.1 s, 3 retries. */
  static final RtsAttributes LOADED = new RtsAttributes(0, 19, 3, 0);

  /** A requester QP on device 0 and its connected responder QP on device 1. */
  record QpPair(QueuePair a, QueuePair b) {}

  final SoftVerbsProvider provider;
  final List<VerbsContext> contexts = new ArrayList<>();
  final List<ProtectionDomain> pds = new ArrayList<>();

  Fabric(int devices) {
    this(devices, new SoftVerbsConfig());
  }

  /** A fabric of {@code devices} devices on a provider made with {@code config}. */
  Fabric(int devices, SoftVerbsConfig config) {
    provider = (SoftVerbsProvider) new SoftVerbsProviderFactory().create(config);
    for (int i = 0; i < devices; i++) {
      VerbsContext c = provider.open("soft" + i);
      contexts.add(c);
      pds.add(c.allocPd());
    }
  }

  VerbsContext ctx(int i) {
    return contexts.get(i);
  }

  ProtectionDomain pd(int i) {
    return pds.get(i);
  }

  QueuePair qp(int dev, CompletionQueue cq, int depth) {
    return pd(dev).createQp(new QpInitAttributes(cq, cq, depth, depth, 64));
  }

  /**
   * Creates a QP of {@code depth} on device 0 completing into {@code cq}, a responder QP (depth 8,
   * own CQ of 16) on device 1, and connects them to RTS with {@code rts}.
   */
  QpPair pair(CompletionQueue cq, int depth, RtsAttributes rts) {
    return pair(cq, depth, 16, 8, rts);
  }

  /**
   * As {@link #pair(CompletionQueue, int, RtsAttributes)}, with a responder QP of {@code peerDepth}
   * and its own CQ of {@code peerCq}.
   */
  QpPair pair(CompletionQueue cq, int depth, int peerCq, int peerDepth, RtsAttributes rts) {
    return pairTo(1, cq, depth, peerCq, peerDepth, rts);
  }

  /**
   * As {@link #pair(CompletionQueue, int, RtsAttributes)}, with the responder QP on device {@code
   * peer}.
   */
  QpPair pairTo(int peer, CompletionQueue cq, int depth, RtsAttributes rts) {
    return pairTo(peer, cq, depth, 16, 8, rts);
  }

  private QpPair pairTo(
      int peer, CompletionQueue cq, int depth, int peerCq, int peerDepth, RtsAttributes rts) {
    QueuePair a = qp(0, cq, depth);
    QueuePair b = qp(peer, ctx(peer).createCq(peerCq), peerDepth);
    connect(a, ctx(0), b, ctx(peer), rts);
    return new QpPair(a, b);
  }

  /**
   * Registers a fresh direct buffer of {@code size} bytes on device 0 as a local (source) region.
   */
  MemoryRegion localMr(int size) {
    return pd(0).registerMemory(ByteBuffer.allocateDirect(size), AccessFlags.LOCAL_WRITE);
  }

  /**
   * Registers a fresh direct buffer of {@code size} bytes on device 1 as a remotely accessible
   * (target) region.
   */
  MemoryRegion remoteMr(int size) {
    return pd(1).registerMemory(ByteBuffer.allocateDirect(size), AccessFlags.ALL_REMOTE);
  }

  /**
   * @return {@code n} signaled RDMA WRITEs (wr ids 0..n-1) of {@code size} bytes each from {@code
   *     src} to {@code dst}
   */
  static WorkRequestBatch writes(int n, MemoryRegion src, MemoryRegion dst, int size) {
    WorkRequestBatch wr = WorkRequestBatch.allocate(n);
    for (int i = 0; i < n; i++) {
      wr.add(
          i,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          src.address(),
          size,
          src.lkey(),
          dst.address(),
          dst.rkey());
    }
    return wr;
  }

  /** Connects two QPs to RTS with the given timeout settings. */
  static void connect(
      QueuePair x, VerbsContext cx, QueuePair y, VerbsContext cy, RtsAttributes rts) {
    QueuePairs.connectInProcess(
        x,
        cx,
        new RtsAttributes(200, rts.timeout(), rts.retryCount(), rts.rnrRetry()),
        y,
        cy,
        new RtsAttributes(100, rts.timeout(), rts.retryCount(), rts.rnrRetry()));
  }

  /** Polls until {@code n} completions arrived (fails after the deadline). */
  static List<Wc> await(CompletionQueue cq, int n, Duration deadline) {
    List<Wc> out = new ArrayList<>();
    WorkCompletionBatch b = WorkCompletionBatch.allocate(64);
    long end = System.nanoTime() + deadline.toNanos();
    while (out.size() < n) {
      int k = cq.poll(b);
      if (k < 0) {
        throw new AssertionError(
            "poll returned " + k + " after " + out.size() + " completions: " + out);
      }
      for (int i = 0; i < k; i++) {
        out.add(
            new Wc(b.wrId(i), b.status(i), b.opcode(i), b.byteLen(i), b.qpNum(i), b.immData(i)));
      }
      if (k == 0) {
        if (System.nanoTime() > end) {
          throw new AssertionError(
              "only " + out.size() + " of " + n + " completions after " + deadline + ": " + out);
        }
        java.util.concurrent.locks.LockSupport.parkNanos(50_000);
      }
    }
    return out;
  }

  /** Asserts that nothing more arrives on the CQ for a short while. */
  static void assertQuiet(CompletionQueue cq, Duration quiet) {
    WorkCompletionBatch b = WorkCompletionBatch.allocate(16);
    long end = System.nanoTime() + quiet.toNanos();
    while (System.nanoTime() < end) {
      int k = cq.poll(b);
      if (k != 0) {
        throw new AssertionError(
            "unexpected completion(s): " + k + " status " + (k > 0 ? b.status(0) : k));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }

  @Override
  public void close() {
    provider.close();
  }
}
