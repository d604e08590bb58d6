package io.vte.verbs.ibv;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.util.Map;

/**
 * Settings of the ibverbs provider, read from the factory's configuration map.
 *
 * @param gidIndex GID index to use on every port, or -1 to choose automatically (RoCE v2 /
 *     IPv4-mapped first, link-local last); key {@code gidIndex}
 * @param maxRdAtomic outstanding RDMA READs per QP as initiator and responder (1..16), lowered to
 *     the device's {@code max_qp_init_rd_atom}/{@code max_qp_rd_atom}; key {@code maxRdAtomic}
 * @param minRnrTimer RNR NAK timer code given at RTR (0..31); key {@code minRnrTimer}
 * @param eventPollMillis how long the event threads wait per poll before checking for close; key
 *     {@code eventPollMillis}
 * @param gidNetdev only GIDs of this netdev (e.g. {@code eth2}), or null for any; key {@code
 *     gidNetdev}
 * @param gidAddress only the GID of this IP address (a literal), or null for any; key {@code
 *     gidAddress}
 * @param gidType only GIDs of this type ({@link IbvGidType#UNKNOWN} for any); key {@code gidType}:
 *     {@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}
 * @param trafficClass GRH traffic class of every QP (0..255: DSCP in the upper 6 bits, e.g. 106 for
 *     DSCP 26 with ECN); key {@code trafficClass}
 * @param serviceLevel service level of every QP (0..15; on RoCE the 802.1p priority of a lossless
 *     class); key {@code serviceLevel}
 * @param forkInit call {@code ibv_fork_init} before any other verbs call, so registered memory
 *     survives the JVM forking a child (off by default: the JVM forks only to start processes,
 *     whose children never touch registered memory, and with it on a bad registration reads as
 *     ENOMEM instead of the kernel's EFAULT); key {@code forkInit}
 * @param pkeyIndex index in the port's P_Key table every QP uses (0..65535, checked against the
 *     table's length at INIT); key {@code pkeyIndex}
 * @param preferredAddress an IP address literal whose interface's GIDs the automatic choice prefers
 *     (an engine passes the address it serves on), or null; key {@code preferredAddress}
 */
public record IbvSettings(
    int gidIndex,
    int maxRdAtomic,
    int minRnrTimer,
    int eventPollMillis,
    String gidNetdev,
    String gidAddress,
    IbvGidType gidType,
    int trafficClass,
    int serviceLevel,
    boolean forkInit,
    int pkeyIndex,
    String preferredAddress) {

  /**
   * The defaults: automatic GID of any netdev, address and type, 16 outstanding READs, RNR timer 12
   * (0.64 ms), 100 ms event polls, traffic class 0, service level 0, no {@code ibv_fork_init},
   * P_Key index 0.
   */
  public static final IbvSettings DEFAULTS = new IbvSettings(-1, 16, 12, 100);

  /** Validates ranges. */
  public IbvSettings {
    check("gidIndex", gidIndex, -1, 255);
    check("maxRdAtomic", maxRdAtomic, 1, 16);
    check("minRnrTimer", minRnrTimer, 0, 31);
    check("eventPollMillis", eventPollMillis, 1, 10_000);
    check("trafficClass", trafficClass, 0, 255);
    check("serviceLevel", serviceLevel, 0, 15);
    check("pkeyIndex", pkeyIndex, 0, 0xffff);
    if (gidType == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "ibverbs setting 'gidType' is null");
    }
    if (gidAddress != null && !gidAddress.matches("[0-9A-Fa-f:.]+")) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "ibverbs setting 'gidAddress' must be an IP address literal, got '" + gidAddress + "'");
    }
  }

  /**
   * The defaults with these four values.
   *
   * @param gidIndex as {@link #gidIndex()}
   * @param maxRdAtomic as {@link #maxRdAtomic()}
   * @param minRnrTimer as {@link #minRnrTimer()}
   * @param eventPollMillis as {@link #eventPollMillis()}
   */
  public IbvSettings(int gidIndex, int maxRdAtomic, int minRnrTimer, int eventPollMillis) {
    this(
        gidIndex,
        maxRdAtomic,
        minRnrTimer,
        eventPollMillis,
        null,
        null,
        IbvGidType.UNKNOWN,
        0,
        0,
        false,
        0,
        null);
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
        intOf(config, "eventPollMillis", DEFAULTS.eventPollMillis),
        stringOf(config, "gidNetdev"),
        stringOf(config, "gidAddress"),
        gidTypeOf(config),
        intOf(config, "trafficClass", DEFAULTS.trafficClass),
        intOf(config, "serviceLevel", DEFAULTS.serviceLevel),
        "true".equals(String.valueOf(config.getOrDefault("forkInit", "false")).trim()),
        intOf(config, "pkeyIndex", DEFAULTS.pkeyIndex),
        stringOf(config, "preferredAddress"));
  }

  private static String stringOf(Map<String, Object> config, String key) {
    Object v = config.get(key);
    return v == null || v.toString().isBlank() ? null : v.toString().trim();
  }

  private static IbvGidType gidTypeOf(Map<String, Object> config) {
    String text = stringOf(config, "gidType");
    if (text == null) {
      return IbvGidType.UNKNOWN;
    }
    IbvGidType type = IbvGidType.parse(text);
    if (type == null) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "ibverbs setting 'gidType' must be auto, roce-v1, roce-v2 or ib, got '" + text + "'");
    }
    return type;
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
