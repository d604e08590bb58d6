package io.vte.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * An {@link ErrorCode#INVALID_CONFIGURATION} about one option: its JSON path, the bad value and
 * what was expected, so that a front end (the CLI's flags, a configuration file reader) can name
 * the option its own way. Thrown by {@link EngineOptions#fromJson} and {@link
 * EngineOptions#validate()}: {@code catch (InvalidOptionException e) { e.path(); }}.
 */
public final class InvalidOptionException extends VteException {

  private static final long serialVersionUID = 1L;

  private final String path;
  private final transient Object value;
  private final String expected;

  /**
   * @param message the whole message, naming the option and the value
   * @param path the option's JSON path, e.g. {@code workersPerContext} or {@code
   *     metadata.leaseTtlMs}
   * @param value the bad value in its JSON form (null when absent)
   * @param expected what the option accepts, in words (its range, its type, or the known keys)
   */
  public InvalidOptionException(String message, String path, Object value, String expected) {
    super(ErrorCode.INVALID_CONFIGURATION, message);
    this.path = path;
    this.value = value;
    this.expected = expected;
  }

  /**
   * @return the option's JSON path, e.g. {@code workersPerContext} or {@code metadata.leaseTtlMs}
   */
  public String path() {
    return path;
  }

  /**
   * @return the bad value in its JSON form, or null
   */
  public Object value() {
    return value;
  }

  /**
   * @return what the option accepts, in words
   */
  public String expected() {
    return expected;
  }

  /**
   * @return the error for a value of the wrong JSON type
   */
  static InvalidOptionException wrongType(String label, String path, Object json, String expected) {
    return new InvalidOptionException(
        label + " '" + path + "' has the wrong type: expected " + expected + ", got " + show(json),
        path,
        json,
        expected);
  }

  /**
   * @return the error for a value out of its field's range
   */
  static InvalidOptionException outOfRange(
      String label, String path, Object value, String expected) {
    return new InvalidOptionException(
        label + " '" + path + "' = " + show(value) + " is invalid: expected " + expected,
        path,
        value,
        expected);
  }

  private static String show(Object value) {
    if (value instanceof String s) {
      return "\"" + s + "\"";
    }
    if (value instanceof JsonObject || value instanceof JsonArray) {
      return value.toString();
    }
    return String.valueOf(value);
  }
}
