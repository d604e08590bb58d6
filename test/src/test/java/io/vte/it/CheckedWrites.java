package io.vte.it;

/**
 * A write load's figures that prove every write landed: each completed write was checked in the
 * receiver ({@link WriteChecks}), whether the load ran here ({@link WriteLoad.Result}) or in a node
 * process ({@link RemoteLoad}).
 */
public interface CheckedWrites {

  /**
   * @return requests that ended
   */
  long transfers();

  /**
   * @return requests that did not complete
   */
  long failures();

  /**
   * @return completed writes whose bytes were found in the receiver
   */
  long verifiedWrites();

  /**
   * @return completed writes whose bytes were not found in the receiver
   */
  long lostWrites();

  /**
   * @return the first lost writes with the faults in flight around them, or "none"
   */
  String lostDetails();

  /**
   * Fails unless every write that completed was checked in the receiver and found there.
   *
   * @param what the load, for the message
   */
  default void assertEveryWriteLanded(String what) {
    if (lostWrites() > 0) {
      throw new AssertionError(
          what + ": completed writes whose bytes are not in the receiver: " + lostDetails());
    }
    long completed = transfers() - failures();
    if (verifiedWrites() != completed) {
      throw new AssertionError(
          what
              + ": "
              + verifiedWrites()
              + " writes checked in the receiver, but "
              + completed
              + " completed (the load ran without its per-write check?)");
    }
  }
}
