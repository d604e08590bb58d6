package io.vte.cli.common;

import java.util.concurrent.Callable;

/**
 * The exit codes every {@code vte} command uses ({@code vte --help} prints them as its footer): 0
 * success, also after a clean stop by SIGINT/SIGTERM; 1 the run failed; 2 bad usage; 3 the command
 * could not start; 130/143 a bench run ended early by SIGINT/SIGTERM (its partial report printed).
 */
public final class ExitCodes {

  /**
   * Success, including a clean shutdown of {@code serve} or {@code bench target} by SIGINT or
   * SIGTERM.
   */
  public static final int OK = 0;

  /** The run itself failed: failed transfers, a data mismatch, a stall, or a rail probe not ok. */
  public static final int RUN_FAILED = 1;

  /** Bad usage: an unknown command or option, a missing or bad value. */
  public static final int USAGE = 2;

  /**
   * Could not start: a bad config file, an engine, port or peer that could not be set up before the
   * run.
   */
  public static final int COULD_NOT_START = 3;

  /**
   * A {@code bench initiator} run ended early by SIGINT (Ctrl-C), after printing its partial report
   * (128 + 2, as a shell reports a process SIGINT ended).
   */
  public static final int SIGINT = 130;

  /**
   * A {@code bench initiator} run ended early by SIGTERM, after printing its partial report (128 +
   * 15).
   */
  public static final int SIGTERM = 143;

  private ExitCodes() {}

  /**
   * Runs one step of a command's start-up, so that its failure exits with {@link #COULD_NOT_START}.
   *
   * @param step e.g. starting an engine or opening the peer's segment
   * @param <T> what the step makes
   * @return what the step made
   * @throws CouldNotStart carrying the step's failure
   */
  public static <T> T starting(Callable<T> step) throws CouldNotStart {
    try {
      return step.call();
    } catch (CouldNotStart e) {
      throw e;
    } catch (Exception e) {
      throw new CouldNotStart(e);
    }
  }

  /**
   * A failure before the command's real work began: exits with {@link #COULD_NOT_START}, its
   * cause's message.
   */
  public static final class CouldNotStart extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param cause what failed
     */
    public CouldNotStart(Throwable cause) {
      super(cause.getMessage(), cause);
    }
  }
}
