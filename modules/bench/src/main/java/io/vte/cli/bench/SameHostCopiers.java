package io.vte.cli.bench;

import io.vte.api.TransferEngine;

/**
 * Counts the copier threads an engine's same-host rail runs now: the threads named {@code
 * vte-shm-copy-<server name>-<n>}, which the rail starts at its first slice. What a memcpy baseline
 * held against the rail must match.
 */
final class SameHostCopiers {

  /** The name prefix of the engine's copier threads, before its server name. */
  static final String THREAD_PREFIX = "vte-shm-copy-";

  private SameHostCopiers() {}

  /**
   * @param engine an engine
   * @return its live copier threads; 0 before its same-host rail copied anything
   */
  static int count(TransferEngine engine) {
    String prefix = THREAD_PREFIX + engine.serverName() + "-";
    int n = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith(prefix)) {
        n++;
      }
    }
    return n;
  }
}
