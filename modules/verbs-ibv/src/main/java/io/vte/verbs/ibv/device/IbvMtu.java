package io.vte.verbs.ibv.device;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;

/** Converts MTUs between bytes (the SPI) and {@code enum ibv_mtu} codes 1..5 (256..4096 bytes). */
public final class IbvMtu {

  private IbvMtu() {}

  /**
   * @param bytes 256, 512, 1024, 2048 or 4096
   * @return the {@code enum ibv_mtu} code
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for any other value
   */
  public static int toCode(int bytes) {
    for (int code = 1; code <= 5; code++) {
      if (toBytes(code) == bytes) {
        return code;
      }
    }
    throw new VerbsException(
        VerbsError.INVALID_ARGUMENT,
        "path MTU must be 256, 512, 1024, 2048 or 4096 bytes, got " + bytes);
  }

  /**
   * @param code an {@code enum ibv_mtu} code
   * @return bytes, or 0 for a code outside 1..5
   */
  public static int toBytes(int code) {
    return code >= 1 && code <= 5 ? 128 << code : 0;
  }
}
