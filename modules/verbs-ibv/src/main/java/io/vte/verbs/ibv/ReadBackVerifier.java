package io.vte.verbs.ibv;

import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryCrc32c;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.lang.System.Logger.Level;
import java.util.Arrays;

/**
 * READ-back verify of one QP: how the ibverbs provider honours {@link WrFlags#INTEGRITY}, which no
 * HCA knows. A flagged RDMA WRITE is posted as the WRITE, unsignaled, then on the same QP an RDMA
 * READ of the same remote range into {@link ReadBackScratch} (signaled; RC executes it after the
 * WRITE). The CRC32C of the source is taken at post time; when the READ completes, the scratch's
 * CRC32C is compared with it. A flagged RDMA READ is posted as the READ, unsignaled, then a second
 * READ of the same range into scratch, whose CRC32C is compared with the first landing's: that
 * catches damage in either transfer and in local memory after the landing, not remote memory that
 * was already damaged (both READs see the same bytes).
 *
 * <p>Either way the pair ends in exactly one completion, with the caller's work request id and
 * opcode: {@code SUCCESS} when the CRCs agree, {@link WcStatus#INTEGRITY_ERR} when not (the QP
 * stays in RTS), or the first error status either half met (the other half's completion, a flush,
 * is dropped). So the caller's CQ credits hold (a CQ asks the device for room for both halves'
 * flushes, {@link IbvContext#createCq}), and the send queue has two entries per work request the
 * caller may post ({@link IbvProtectionDomain#createQp}).
 *
 * <p>RC completes a QP's send work in order, so the verified work requests in flight are a ring in
 * posting order, and each READ-back's work request id is the address of its scratch slot (unique
 * while in flight). Thread-safe: posts and the CQ's poll take the lock.
 */
final class ReadBackVerifier {

  private static final System.Logger LOG = System.getLogger(ReadBackVerifier.class.getName());

  /** Why the provider's queue limits are half the device's, for messages that name them. */
  static final String WHY_HALF =
      " (READ-back verify takes two work requests per checked one; ibverbs option"
          + " 'readBackVerify' false turns it off)";

  private final int qpNum;
  private final int depth;
  private final ReadBackScratch scratch;
  private final MemoryCrc32c crc = new MemoryCrc32c();
  private final long[] wrIds;
  private final long[] markers;
  private final long[] localAddresses;
  private final int[] lengths;
  private final int[] sourceCrcs;
  private final boolean[] reads;
  private final boolean[] failed;
  private final ReadBackScratch.Area[] areas;
  private int head;
  private int count;
  private WorkRequestBatch expanded;
  private int[] origins;

  /**
   * @param pd the QP's domain (registers the scratch)
   * @param qpNum the QP's number
   * @param depth work requests the caller may have in flight on the QP
   */
  ReadBackVerifier(IbvProtectionDomain pd, int qpNum, int depth) {
    this.qpNum = qpNum;
    this.depth = depth;
    this.scratch = new ReadBackScratch(pd, depth);
    this.wrIds = new long[depth];
    this.markers = new long[depth];
    this.localAddresses = new long[depth];
    this.lengths = new int[depth];
    this.sourceCrcs = new int[depth];
    this.reads = new boolean[depth];
    this.failed = new boolean[depth];
    this.areas = new ReadBackScratch.Area[depth];
  }

  /**
   * @return the QP's number
   */
  int qpNum() {
    return qpNum;
  }

  /**
   * @param batch work requests
   * @param count how many of them to post
   * @return true when one of the first {@code count} asks to be verified
   */
  static boolean anyVerified(WorkRequestBatch batch, int count) {
    for (int i = 0; i < count; i++) {
      if ((batch.flags(i) & WrFlags.INTEGRITY) != 0) {
        return true;
      }
    }
    return false;
  }

  /** Whether work request {@code i} is one this verifier reads back: a flagged WRITE or READ. */
  private static boolean verified(WorkRequestBatch batch, int i) {
    int opcode = batch.opcode(i);
    return (batch.flags(i) & WrFlags.INTEGRITY) != 0
        && (opcode == WrOpcode.RDMA_WRITE || opcode == WrOpcode.RDMA_READ);
  }

  /**
   * Posts the first {@code n} work requests of {@code batch}, each flagged WRITE or READ with its
   * READ-back; the flag is cleared from every work request (an HCA refuses it).
   *
   * @param qp the {@code ibv_qp*}
   * @param batch the caller's work requests
   * @param n how many to post
   * @return as {@link IbvNative#postSend}, with the bad index in {@code batch}'s numbering
   */
  synchronized long post(long qp, WorkRequestBatch batch, int n) {
    WorkRequestBatch out = expandedFor(n);
    int firstNew = count;
    int refusedAt = -1;
    for (int i = 0; i < n; i++) {
      int flags = batch.flags(i) & ~WrFlags.INTEGRITY;
      int opcode = batch.opcode(i);
      if (!verified(batch, i)) {
        origins[out.size()] = i;
        out.add(
            batch.wrId(i),
            opcode,
            flags,
            batch.localAddress(i),
            batch.length(i),
            batch.lkey(i),
            batch.remoteAddress(i),
            batch.rkey(i),
            batch.immData(i));
        continue;
      }
      if (count == depth) {
        refusedAt = i; // more verified work in flight than the QP's depth: a full queue
        break;
      }
      int e;
      try {
        e = push(batch, i, opcode == WrOpcode.RDMA_READ);
      } catch (RuntimeException | OutOfMemoryError noScratch) {
        // The host could not give (or pin) the scratch: this one and those after it are refused
        // as a full queue would be, those before it go.
        LOG.log(
            Level.ERROR,
            "QP " + qpNum + ": no scratch for a READ-back of " + batch.length(i) + " bytes",
            noScratch);
        refusedAt = i;
        break;
      }
      origins[out.size()] = i;
      out.add(
          batch.wrId(i),
          opcode,
          flags & ~WrFlags.SIGNALED,
          batch.localAddress(i),
          batch.length(i),
          batch.lkey(i),
          batch.remoteAddress(i),
          batch.rkey(i));
      origins[out.size()] = i;
      out.add(
          markers[e],
          WrOpcode.RDMA_READ,
          WrFlags.SIGNALED,
          markers[e],
          lengths[e],
          areas[e].lkey(),
          batch.remoteAddress(i),
          batch.rkey(i));
    }
    long r =
        out.size() == 0
            ? 0
            : IbvNative.postSend(qp, DirectMemory.address(out.buffer()), out.size());
    int badIndex;
    long errno;
    if (r == 0) {
      if (refusedAt < 0) {
        return 0;
      }
      badIndex = refusedAt;
      errno = -PostStatus.QUEUE_FULL;
    } else {
      long v = -r;
      badIndex = origins[(int) (v >>> IbvNative.POST_BAD_INDEX_SHIFT)];
      errno = v & ((1 << IbvNative.POST_BAD_INDEX_SHIFT) - 1);
      // Work requests from the bad one on were not posted: their entries go. (Should the bad one
      // be its READ-back, its WRITE went unsignaled: it completes only if it fails.)
      unpushFrom(batch, badIndex, firstNew);
    }
    return -(((long) badIndex << IbvNative.POST_BAD_INDEX_SHIFT) | errno);
  }

  /** The reusable batch of work requests with their READ-backs, grown to the largest post. */
  private WorkRequestBatch expandedFor(int n) {
    if (expanded == null || expanded.capacity() < 2 * n) {
      expanded = WorkRequestBatch.allocate(2 * n);
      origins = new int[2 * n];
    }
    expanded.clear();
    return expanded;
  }

  /** Appends an entry for work request {@code i} at the tail of the ring. */
  private int push(WorkRequestBatch batch, int i, boolean read) {
    int e = (head + count) % depth;
    int length = batch.length(i);
    ReadBackScratch.Area area = scratch.acquire(length);
    wrIds[e] = batch.wrId(i);
    areas[e] = area;
    markers[e] = area.slot(e);
    localAddresses[e] = batch.localAddress(i);
    lengths[e] = length;
    reads[e] = read;
    failed[e] = false;
    sourceCrcs[e] = read ? 0 : crc.of(batch.localAddress(i), length);
    count++;
    return e;
  }

  /** Drops the entries pushed for work requests {@code from} on (of those pushed by this post). */
  private void unpushFrom(WorkRequestBatch batch, int from, int firstNew) {
    // Entries of this post are in work-request order: count the verified ones before `from`.
    int before = 0;
    for (int i = 0; i < from; i++) {
      if (verified(batch, i)) {
        before++;
      }
    }
    while (count > firstNew + before) {
      int e = (head + count - 1) % depth;
      scratch.release(areas[e]);
      areas[e] = null;
      count--;
    }
  }

  /**
   * Judges completion {@code i} of a poll when it belongs to a verified work request: the
   * READ-back's becomes the work request's (the CRCs compared); an error of the first half is kept
   * and the READ-back's flush then dropped.
   *
   * @param out a polled batch
   * @param i an entry of this QP
   * @return false when the entry is to be dropped
   */
  synchronized boolean judge(WorkCompletionBatch out, int i) {
    if (count == 0) {
      return true;
    }
    int e = head;
    long wrId = out.wrId(i);
    if (wrId == markers[e]) {
      boolean keep = !failed[e];
      if (keep) {
        int status = out.status(i);
        if (status == WcStatus.SUCCESS.code() && !sound(e)) {
          status = WcStatus.INTEGRITY_ERR.code();
        }
        out.put(
            i,
            wrIds[e],
            status,
            reads[e] ? WcOpcode.RDMA_READ : WcOpcode.RDMA_WRITE,
            reads[e] ? out.byteLen(i) : 0,
            out.qpNum(i),
            out.vendorErr(i),
            out.immData(i));
      }
      pop();
      return keep;
    }
    if (wrId == wrIds[e] && !failed[e] && out.status(i) != WcStatus.SUCCESS.code()) {
      failed[e] = true; // the first half failed: this is the work request's completion
    }
    return true;
  }

  /** The scratch's CRC32C against the source's (WRITE) or the first landing's (READ). */
  private boolean sound(int e) {
    int expected = reads[e] ? crc.of(localAddresses[e], lengths[e]) : sourceCrcs[e];
    return crc.of(markers[e], lengths[e]) == expected;
  }

  private void pop() {
    scratch.release(areas[head]);
    areas[head] = null;
    head = (head + 1) % depth;
    count--;
  }

  /** Frees the scratch; call after the QP is destroyed. */
  synchronized void close() {
    while (count > 0) {
      pop();
    }
    scratch.close();
  }

  /**
   * The {@link ReadBackVerifier}s of the QPs that complete on one CQ, by QP number, and the pass
   * over each polled batch that hands their completions to them: verified work requests end in one
   * completion each, the other half's dropped from the batch. Copy-on-write: QPs come and go
   * rarely, a poll reads the arrays without a lock or an allocation.
   */
  static final class Completions {

    /** Sorted QP numbers and, at the same index, their verifiers. */
    private record Table(int[] qpNums, ReadBackVerifier[] verifiers) {}

    private static final Table EMPTY = new Table(new int[0], new ReadBackVerifier[0]);

    private volatile Table table = EMPTY;

    /**
     * @param verifier a QP's verifier, to judge its completions from now on
     */
    synchronized void add(ReadBackVerifier verifier) {
      Table t = table;
      int at = -Arrays.binarySearch(t.qpNums, verifier.qpNum()) - 1;
      int n = t.qpNums.length;
      int[] nums = new int[n + 1];
      ReadBackVerifier[] vs = new ReadBackVerifier[n + 1];
      System.arraycopy(t.qpNums, 0, nums, 0, at);
      System.arraycopy(t.verifiers, 0, vs, 0, at);
      nums[at] = verifier.qpNum();
      vs[at] = verifier;
      System.arraycopy(t.qpNums, at, nums, at + 1, n - at);
      System.arraycopy(t.verifiers, at, vs, at + 1, n - at);
      table = new Table(nums, vs);
    }

    /**
     * @param verifier a verifier of a destroyed QP
     */
    synchronized void remove(ReadBackVerifier verifier) {
      Table t = table;
      int at = Arrays.binarySearch(t.qpNums, verifier.qpNum());
      if (at < 0 || t.verifiers[at] != verifier) {
        return;
      }
      int n = t.qpNums.length;
      int[] nums = new int[n - 1];
      ReadBackVerifier[] vs = new ReadBackVerifier[n - 1];
      System.arraycopy(t.qpNums, 0, nums, 0, at);
      System.arraycopy(t.verifiers, 0, vs, 0, at);
      System.arraycopy(t.qpNums, at + 1, nums, at, n - at - 1);
      System.arraycopy(t.verifiers, at + 1, vs, at, n - at - 1);
      table = n == 1 ? EMPTY : new Table(nums, vs);
    }

    /**
     * Judges the completions {@code [from, to)} of a poll, dropping those a verifier swallows and
     * moving the rest down.
     *
     * @param out the polled batch
     * @param from the first new completion
     * @param to the end of the new completions
     * @return the end of the completions kept, which start at {@code from}
     */
    int judge(WorkCompletionBatch out, int from, int to) {
      Table t = table;
      if (t.qpNums.length == 0) {
        return to;
      }
      int kept = from;
      for (int i = from; i < to; i++) {
        int at = Arrays.binarySearch(t.qpNums, out.qpNum(i));
        if (at >= 0 && !t.verifiers[at].judge(out, i)) {
          continue;
        }
        if (kept != i) {
          out.put(
              kept,
              out.wrId(i),
              out.status(i),
              out.opcode(i),
              out.byteLen(i),
              out.qpNum(i),
              out.vendorErr(i),
              out.immData(i));
        }
        kept++;
      }
      return kept;
    }
  }
}
