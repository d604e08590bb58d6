package io.vte.cli.bench.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/** Runs a baseline's streams side by side, one thread each, for the baselines of many streams. */
final class StreamThreads {

  private StreamThreads() {}

  /**
   * Runs {@code body} for each stream index on its own thread and waits for all of them.
   *
   * @param streams how many, at least 1
   * @param threadName the threads' name, followed by the stream index
   * @param what the baseline, for the message of an interrupted wait
   * @param body the measurement of one stream
   * @param <T> what one stream measures
   * @return each stream's result, in index order
   * @throws RuntimeException the failure of a stream, after every thread ended
   */
  static <T> List<T> run(int streams, String threadName, String what, IntFunction<T> body) {
    List<T> results = new ArrayList<>(streams);
    Thread[] threads = new Thread[streams];
    RuntimeException[] failure = new RuntimeException[1];
    for (int i = 0; i < streams; i++) {
      results.add(null);
      int index = i;
      threads[i] =
          new Thread(
              () -> {
                try {
                  T r = body.apply(index);
                  synchronized (results) {
                    results.set(index, r);
                  }
                } catch (RuntimeException e) {
                  failure[0] = e;
                }
              },
              threadName + i);
      threads[i].start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while " + what + " ran", e);
      }
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    return results;
  }
}
