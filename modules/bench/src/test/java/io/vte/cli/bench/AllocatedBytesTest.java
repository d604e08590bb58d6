package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.cli.common.Blocking;
import org.junit.jupiter.api.Test;

/** The allocation counter behind {@code alloc_bytes_per_64k_moved}. */
class AllocatedBytesTest {

  private static volatile Object sink;

  @Test
  void countsWhatAThreadThatEndedAllocated() throws Exception {
    long before = Blocking.allocatedBytes();
    Thread t =
        new Thread(
            () -> {
              for (int i = 0; i < 64; i++) {
                sink = new byte[1 << 20];
              }
            },
            "allocating-then-ending");
    t.start();
    t.join();
    long after = Blocking.allocatedBytes();
    assertTrue(
        after - before >= 64L << 20,
        "the ended thread's 64 MiB are counted: " + (after - before) + " B");
  }
}
