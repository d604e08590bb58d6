package io.vte.it;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;

/**
 * The last writes of one slot of a load (pattern seed, when it was in flight), to explain a slot
 * that does not hold what was last written: which of those writes each 4 KiB block holds, as runs,
 * e.g. {@code [0..1536 KiB write 797, 1536..1600 KiB write 790 (7 earlier), ...]}.
 */
final class SlotWrites {

  private static final int KEPT = 32;
  private static final int BLOCK = 4096;

  private record Write(long seed, long started, long[] ended) {}

  private final Deque<Write> writes = new ArrayDeque<>();

  /**
   * @param seed the write's pattern seed
   * @param started System.nanoTime of submission
   * @return where to put its completion time
   */
  long[] started(long seed, long started) {
    if (writes.size() == KEPT) {
      writes.removeLast();
    }
    Write w = new Write(seed, started, new long[] {-1});
    writes.addFirst(w);
    return w.ended();
  }

  /**
   * @param memory what the slot holds (e.g. a READ of it)
   * @param length the slot's length, a multiple of 4 KiB
   * @param scratch native memory of {@code length} bytes to rebuild patterns in
   * @param faults the run's fault steps
   * @return the runs of blocks by the write they hold, newest write first, and the last write's
   *     life with the faults around it
   */
  String explain(long memory, int length, long scratch, FaultLog faults) {
    int blocks = length / BLOCK;
    long[] actual = new long[blocks];
    for (int b = 0; b < blocks; b++) {
      actual[b] = Pattern.crc(memory + (long) b * BLOCK, BLOCK);
    }
    int[] holder = new int[blocks];
    Arrays.fill(holder, -1);
    int age = 0;
    for (Iterator<Write> it = writes.iterator(); it.hasNext(); age++) {
      Pattern.fill(scratch, length, it.next().seed());
      for (int b = 0; b < blocks; b++) {
        if (holder[b] < 0 && Pattern.crc(scratch + (long) b * BLOCK, BLOCK) == actual[b]) {
          holder[b] = age;
        }
      }
    }
    Write[] byAge = writes.toArray(new Write[0]);
    StringBuilder sb = new StringBuilder("[");
    for (int start = 0, b = 1; b <= blocks; b++) {
      if (b == blocks || holder[b] != holder[start]) {
        sb.append(start * (BLOCK / 1024)).append("..").append(b * (BLOCK / 1024)).append(" KiB ");
        int h = holder[start];
        sb.append(
            h < 0
                ? "none of the last " + byAge.length + " writes"
                : "write "
                    + byAge[h].seed()
                    + (h == 0 ? "" : " (" + h + " earlier, " + life(byAge[h], faults) + ")"));
        sb.append(b == blocks ? "]" : ", ");
        start = b;
      }
    }
    return sb.append("; last write ")
        .append(byAge[0].seed())
        .append(" (")
        .append(life(byAge[0], faults))
        .append(")")
        .toString();
  }

  private static String life(Write w, FaultLog faults) {
    return faults.describe(w.started(), w.ended()[0]);
  }
}
