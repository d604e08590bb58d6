package io.vte.verbs.ibv;

import io.vte.verbs.WorkCompletionBatch;
import java.util.Arrays;

/**
 * The {@link ReadBackVerifier}s of the QPs that complete on one CQ, by QP number, and the pass over
 * each polled batch that hands their completions to them: verified work requests end in one
 * completion each, the other half's dropped from the batch. Copy-on-write: QPs come and go rarely,
 * a poll reads the arrays without a lock or an allocation.
 */
final class ReadBackCompletions {

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
