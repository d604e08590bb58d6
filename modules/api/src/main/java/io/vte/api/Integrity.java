package io.vte.api;

/**
 * End-to-end integrity checking of transferred bytes: the engine option {@code integrity} ({@link
 * EngineOptions#setIntegrity}) and its per-batch override ({@link TransferOptions#setIntegrity}).
 * With {@link #CRC32C} each slice's CRC32C is computed over the source memory and checked against
 * the destination memory before the request completes, on the soft-verbs wire and the same-host
 * rail; a mismatch retries the slice on another rail, then fails the request with {@link
 * ErrorCode#DATA_CORRUPTED}. See {@code docs/integrity.md}.
 */
public enum Integrity {
  /** No check: the transport's own guards only (the default). */
  NONE("none"),
  /** A CRC32C per slice, source memory against destination memory. */
  CRC32C("crc32c");

  private final String jsonName;

  Integrity(String jsonName) {
    this.jsonName = jsonName;
  }

  /**
   * @return its name in JSON and on the command line ({@code none}, {@code crc32c})
   */
  public String jsonName() {
    return jsonName;
  }

  /**
   * @param name {@code none} or {@code crc32c}
   * @return the mode
   * @throws VteException INVALID_ARGUMENT naming the value for anything else
   */
  public static Integrity parse(String name) {
    Integrity found = find(name);
    if (found == null) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "integrity must be none or crc32c, got '" + name + "'");
    }
    return found;
  }

  /**
   * @param name a candidate name, or null
   * @return true when {@link #parse} takes it
   */
  static boolean isName(String name) {
    return find(name) != null;
  }

  private static Integrity find(String name) {
    for (Integrity i : values()) {
      if (i.jsonName.equals(name)) {
        return i;
      }
    }
    return null;
  }
}
