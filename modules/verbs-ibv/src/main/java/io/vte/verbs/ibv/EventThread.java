package io.vte.verbs.ibv;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A daemon thread that runs one {@link Source} until closed. Each poll waits at most the poll
 * period, so {@link #close()} stops the thread within one period without signals or extra file
 * descriptors. A poll that throws is logged; the thread goes on.
 */
final class EventThread implements AutoCloseable {

  /** One wait-and-dispatch step on a native event file descriptor. */
  @FunctionalInterface
  interface Source {
    /**
     * @param timeoutMillis longest wait
     * @return events handled (0 on timeout)
     */
    int pollOnce(int timeoutMillis);
  }

  private static final System.Logger LOG = System.getLogger(EventThread.class.getName());

  private final Thread thread;
  private final Source source;
  private final int pollMillis;
  private volatile boolean running = true;

  /**
   * Starts the thread.
   *
   * @param name thread name
   * @param source what to poll
   * @param pollMillis poll period
   */
  EventThread(String name, Source source, int pollMillis) {
    this.source = source;
    this.pollMillis = pollMillis;
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      try {
        source.pollOnce(pollMillis);
      } catch (RuntimeException e) {
        // One failed poll must not end every CQ wake-up and port, QP and device event of the
        // device: log it, wait one period (so a persistent failure does not spin) and go on.
        LOG.log(Level.ERROR, thread.getName() + " poll failed, continuing: " + e.getMessage(), e);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pollMillis));
      }
    }
  }

  /**
   * @return true while the thread runs
   */
  boolean isAlive() {
    return thread.isAlive();
  }

  /**
   * Stops the thread and waits for it to end. Idempotent; must not be called from the thread
   * itself.
   */
  @Override
  public void close() {
    running = false;
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
