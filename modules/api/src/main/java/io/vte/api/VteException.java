package io.vte.api;

/**
 * A VTE failure with a typed {@link ErrorCode} and a message naming the offending value; the cause
 * of a failed Future or {@link RequestResult#cause()}: {@code batch.result().onFailure(e ->
 * ((VteException) e).code())}.
 */
public class VteException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  /**
   * @param code the typed cause
   * @param message what failed, naming the offending value
   */
  public VteException(ErrorCode code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  /**
   * @param code the typed cause
   * @param message what failed, naming the offending value
   * @param cause the underlying failure
   */
  public VteException(ErrorCode code, String message, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = code;
  }

  /**
   * @return the typed cause
   */
  public ErrorCode code() {
    return code;
  }
}
