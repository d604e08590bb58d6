package io.vte.verbs.ibv;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.util.Map;

/**
 * Settings of the ibverbs provider, read from the factory's configuration map.
 *
 * @param gidIndex GID index to use on every port, or -1 to choose automatically (RoCE v2 /
 *     IPv4-mapped first, link-local last); key {@code gidIndex}
 * @param maxRdAtomic outstanding RDMA READs per QP as initiator and responder (1..16); key {@code
 *     maxRdAtomic}
 * @param minRnrTimer RNR NAK timer code given at RTR (0..31); key {@code minRnrTimer}
 * @param eventPollMillis how long the event threads wait per poll before checking for close; key
 *     {@code eventPollMillis}
 */
public record IbvSettings(int gidIndex, int maxRdAtomic, int minRnrTimer, int eventPollMillis) {

  /**
   * The defaults: automatic GID, 16 outstanding READs, RNR timer 12 (0.64 ms), 100 ms event polls.
   */
  public static final IbvSettings DEFAULTS = new IbvSettings(-1, 16, 12, 100);

  /** Validates ranges. */
  public IbvSettings {
    check("gidIndex", gidIndex, -1, 255);
    check("maxRdAtomic", maxRdAtomic, 1, 16);
    check("minRnrTimer", minRnrTimer, 0, 31);
    check("eventPollMillis", eventPollMillis, 1, 10_000);
  }

  /**
   * @param config the factory configuration; absent keys take {@link #DEFAULTS}
   * @return the settings
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} naming a key with a bad value
   */
  public static IbvSettings fromConfig(Map<String, Object> config) {
    return new IbvSettings(
        intOf(config, "gidIndex", DEFAULTS.gidIndex),
        intOf(config, "maxRdAtomic", DEFAULTS.maxRdAtomic),
        intOf(config, "minRnrTimer", DEFAULTS.minRnrTimer),
        intOf(config, "eventPollMillis", DEFAULTS.eventPollMillis));
  }

  private static int intOf(Map<String, Object> config, String key, int fallback) {
    Object v = config.get(key);
    if (v == null) {
      return fallback;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).intValue();
    }
    if (v instanceof String) {
      try {
        return Integer.parseInt(((String) v).trim());
      } catch (NumberFormatException e) {
        // reported below with the key and value
      }
    }
    throw new VerbsException(
        VerbsError.INVALID_ARGUMENT,
        "ibverbs setting '"
            + key
            + "' must be an integer, got "
            + v.getClass().getSimpleName()
            + " '"
            + v
            + "'");
  }

  private static void check(String key, int value, int min, int max) {
    if (value < min || value > max) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "ibverbs setting '" + key + "' must be " + min + ".." + max + ", got " + value);
    }
  }
}
