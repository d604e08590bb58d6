package io.vte.engine.impl.owner;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Runs an owner's QP lifecycle verbs (create, modify to INIT/RTR/RTS, destroy) off its event loop:
 * on RoCE the move to RTR resolves the peer's neighbour entry and can block for about a second, and
 * create and destroy are system calls that wait on the kernel. The job runs on the context's verbs
 * executor; its result comes back to the owner as a command, so the owner goes on polling its CQ
 * meanwhile and acts on the result on its own thread, after checking that it still concerns the
 * same endpoint. Owner-confined (only {@link #run} is called, on the owner's thread).
 */
final class QpJobs {

  private final Executor executor;
  private final OwnerProxy proxy;

  /**
   * @param executor where the verbs run; null to run them at once on the owner's thread (an owner
   *     driven directly by a test, whose fake verbs never block)
   * @param proxy the owner's command queue, which results come back through
   */
  QpJobs(Executor executor, OwnerProxy proxy) {
    this.executor = executor;
    this.proxy = proxy;
  }

  /**
   * Runs {@code job} off the owner's thread, then {@code then} on it with the job's result or
   * failure. When the owner is gone by then (closed), {@code orphan} gets the result instead, off
   * the event loops, to release what the job made.
   *
   * @param job the verbs; may block
   * @param then runs on the owner's thread with (result, null) or (null, failure); null for none
   * @param orphan releases a result nobody will take (may block); null when there is nothing to
   *     release
   */
  <T> void run(Callable<T> job, BiConsumer<T, Throwable> then, Consumer<T> orphan) {
    if (executor == null) {
      Outcome<T> outcome = Outcome.of(job);
      if (then != null) {
        then.accept(outcome.result, outcome.failure);
      }
      return;
    }
    try {
      executor.execute(
          () -> {
            Outcome<T> outcome = Outcome.of(job);
            if (then != null) {
              proxy.execute(
                  new OwnerCommand.JobDone(
                      () -> then.accept(outcome.result, outcome.failure),
                      () -> release(outcome, orphan)));
            } else {
              release(outcome, orphan);
            }
          });
    } catch (RejectedExecutionException e) {
      // The context is closing and its executor stopped taking work: run here rather than leak.
      Outcome<T> outcome = Outcome.of(job);
      if (then != null) {
        then.accept(outcome.result, outcome.failure);
      }
    }
  }

  /**
   * Hands a result nobody will take to {@code orphan}: on the executor, since the thread that finds
   * the owner gone may be an event loop; here once the executor is stopped (context close, off the
   * event loops).
   */
  private <T> void release(Outcome<T> outcome, Consumer<T> orphan) {
    if (orphan == null || outcome.result == null) {
      return;
    }
    try {
      executor.execute(() -> orphan.accept(outcome.result));
    } catch (RejectedExecutionException e) {
      orphan.accept(outcome.result);
    }
  }

  /** What a job gave: its result or its failure. */
  private record Outcome<T>(T result, Throwable failure) {
    static <T> Outcome<T> of(Callable<T> job) {
      try {
        return new Outcome<>(job.call(), null);
      } catch (Exception | Error e) {
        return new Outcome<>(null, e);
      }
    }
  }
}
