package io.vte.verbs;

/**
 * A control-plane verbs failure with a typed {@link VerbsError} and a message naming the bad value.
 */
public class VerbsException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final VerbsError error;

  /**
   * @param error the typed cause
   * @param message what failed, naming the offending value
   */
  public VerbsException(VerbsError error, String message) {
    super(error + ": " + message);
    this.error = error;
  }

  /**
   * @param error the typed cause
   * @param message what failed, naming the offending value
   * @param cause the underlying exception
   */
  public VerbsException(VerbsError error, String message, Throwable cause) {
    super(error + ": " + message, cause);
    this.error = error;
  }

  /**
   * @return the typed cause
   */
  public VerbsError error() {
    return error;
  }
}
