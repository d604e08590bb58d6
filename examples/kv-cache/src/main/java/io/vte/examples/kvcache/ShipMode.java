package io.vte.examples.kvcache;

/** How the prefill node ships a block: it pushes it (WRITE) or the decode node pulls it (READ). */
public enum ShipMode {
  /** The prefill node writes the block into the decode node's pool, then notifies it. */
  WRITE,
  /** The prefill node notifies the decode node, which reads the block from the staging buffer. */
  READ;

  /**
   * @param text {@code WRITE} or {@code READ}
   * @return the mode
   * @throws IllegalArgumentException naming the text for anything else (the example verifies only
   *     these two ways of shipping a block)
   */
  public static ShipMode parse(String text) {
    for (ShipMode m : values()) {
      if (m.name().equals(text)) {
        return m;
      }
    }
    throw new IllegalArgumentException("mode '" + text + "' is not WRITE or READ");
  }
}
