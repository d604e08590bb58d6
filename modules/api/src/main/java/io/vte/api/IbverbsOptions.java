package io.vte.api;

import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * How an ibverbs engine addresses its RDMA ports; JSON {@code {"gidIndex", "gidNetdev",
 * "gidAddress", "gidType", "trafficClass", "serviceLevel", "pkeyIndex", "readBackVerify"}}, nested
 * as the engine option {@code ibverbs}. The engine hands them to the ibverbs provider as its
 * options of the same names (whose fields take these fields' defaults and ranges): the source GID
 * (by index, or the GID of a netdev or an IP address, of a type), the GRH traffic class and service
 * level of every QP (lossless RoCE classes), its P_Key index (InfiniBand partitions) and whether
 * integrity checks read the bytes back. Soft verbs devices ignore them.
 */
public final class IbverbsOptions {

  /** The GID types {@code gidType} accepts. */
  public static final Set<String> GID_TYPES = Set.of("auto", "roce-v1", "roce-v2", "ib");

  /** What a field is called in error messages. */
  private static final String LABEL = "ibverbs option";

  /** The field {@code gidIndex}. */
  public static final OptionFields.Field<IbverbsOptions, Integer> GID_INDEX =
      OptionFields.field(
              "gidIndex",
              OptionKind.INT,
              -1,
              IbverbsOptions::getGidIndex,
              IbverbsOptions::setGidIndex)
          .check(n -> n >= -1 && n <= 255, "-1..255 (-1: automatic)");

  /** The field {@code gidNetdev}. */
  public static final OptionFields.Field<IbverbsOptions, String> GID_NETDEV =
      OptionFields.field(
              "gidNetdev",
              OptionKind.STRING,
              null,
              IbverbsOptions::getGidNetdev,
              IbverbsOptions::setGidNetdev)
          .check(n -> n == null || !n.isBlank(), "a netdev name such as eth2 (unset: any)");

  /** The field {@code gidAddress}. */
  public static final OptionFields.Field<IbverbsOptions, String> GID_ADDRESS =
      OptionFields.field(
              "gidAddress",
              OptionKind.STRING,
              null,
              IbverbsOptions::getGidAddress,
              IbverbsOptions::setGidAddress)
          .check(
              a -> a == null || a.matches("[0-9A-Fa-f:.]+"), "an IP address literal (unset: any)");

  /** The field {@code gidType}. */
  public static final OptionFields.Field<IbverbsOptions, String> GID_TYPE =
      OptionFields.field(
              "gidType",
              OptionKind.STRING,
              "auto",
              IbverbsOptions::getGidType,
              IbverbsOptions::setGidType)
          .check(GID_TYPES::contains, "auto, roce-v1, roce-v2 or ib");

  /** The field {@code trafficClass}. */
  public static final OptionFields.Field<IbverbsOptions, Integer> TRAFFIC_CLASS =
      OptionFields.field(
              "trafficClass",
              OptionKind.INT,
              0,
              IbverbsOptions::getTrafficClass,
              IbverbsOptions::setTrafficClass)
          .check(n -> n >= 0 && n <= 255, "0..255 (DSCP << 2 | ECN)");

  /** The field {@code serviceLevel}. */
  public static final OptionFields.Field<IbverbsOptions, Integer> SERVICE_LEVEL =
      OptionFields.field(
              "serviceLevel",
              OptionKind.INT,
              0,
              IbverbsOptions::getServiceLevel,
              IbverbsOptions::setServiceLevel)
          .check(n -> n >= 0 && n <= 15, "0..15");

  /** The field {@code pkeyIndex}. */
  public static final OptionFields.Field<IbverbsOptions, Integer> PKEY_INDEX =
      OptionFields.field(
              "pkeyIndex",
              OptionKind.INT,
              0,
              IbverbsOptions::getPkeyIndex,
              IbverbsOptions::setPkeyIndex)
          .check(n -> n >= 0 && n <= 0xffff, "0..65535 (an index in the port's P_Key table)");

  /** The field {@code readBackVerify}. */
  public static final OptionFields.Field<IbverbsOptions, Boolean> READ_BACK_VERIFY =
      OptionFields.field(
              "readBackVerify",
              OptionKind.BOOLEAN,
              true,
              IbverbsOptions::isReadBackVerify,
              IbverbsOptions::setReadBackVerify)
          .check(b -> b != null, "true or false");

  /** The fields: JSON names, kinds, defaults, ranges. */
  public static final OptionFields<IbverbsOptions> FIELDS =
      OptionFields.of(
          GID_INDEX,
          GID_NETDEV,
          GID_ADDRESS,
          GID_TYPE,
          TRAFFIC_CLASS,
          SERVICE_LEVEL,
          PKEY_INDEX,
          READ_BACK_VERIFY);

  private int gidIndex;
  private String gidNetdev;
  private String gidAddress;
  private String gidType;
  private int trafficClass;
  private int serviceLevel;
  private int pkeyIndex;
  private boolean readBackVerify;

  /** Creates options with the defaults: automatic GID of any type, class 0, level 0. */
  public IbverbsOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json the ibverbs options
   * @return them, types checked (ranges by {@link #validate()})
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static IbverbsOptions fromJson(JsonObject json) {
    IbverbsOptions o = new IbverbsOptions();
    FIELDS.read(json, o, LABEL, "");
    return o;
  }

  /**
   * @return the options as JSON
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public IbverbsOptions validate() {
    FIELDS.validate(this, LABEL, "");
    return this;
  }

  /**
   * @return the GID index every port uses, -1 to choose automatically
   */
  public int getGidIndex() {
    return gidIndex;
  }

  /**
   * @param gidIndex GID index, -1..255 (-1: automatic)
   * @return this
   */
  public IbverbsOptions setGidIndex(int gidIndex) {
    this.gidIndex = gidIndex;
    return this;
  }

  /**
   * @return only GIDs of this netdev are chosen, null for any
   */
  public String getGidNetdev() {
    return gidNetdev;
  }

  /**
   * @param gidNetdev a netdev name such as {@code eth2}, or null for any
   * @return this
   */
  public IbverbsOptions setGidNetdev(String gidNetdev) {
    this.gidNetdev = gidNetdev;
    return this;
  }

  /**
   * @return only the GID of this IP address is chosen, null for any
   */
  public String getGidAddress() {
    return gidAddress;
  }

  /**
   * @param gidAddress an IP address literal, or null for any
   * @return this
   */
  public IbverbsOptions setGidAddress(String gidAddress) {
    this.gidAddress = gidAddress;
    return this;
  }

  /**
   * @return the GID type chosen: {@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}
   */
  public String getGidType() {
    return gidType;
  }

  /**
   * @param gidType {@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}
   * @return this
   */
  public IbverbsOptions setGidType(String gidType) {
    this.gidType = gidType;
    return this;
  }

  /**
   * @return GRH traffic class of every QP
   */
  public int getTrafficClass() {
    return trafficClass;
  }

  /**
   * @param trafficClass GRH traffic class, 0..255 (DSCP in the upper 6 bits)
   * @return this
   */
  public IbverbsOptions setTrafficClass(int trafficClass) {
    this.trafficClass = trafficClass;
    return this;
  }

  /**
   * @return service level of every QP
   */
  public int getServiceLevel() {
    return serviceLevel;
  }

  /**
   * @param serviceLevel service level, 0..15 (on RoCE the priority)
   * @return this
   */
  public IbverbsOptions setServiceLevel(int serviceLevel) {
    this.serviceLevel = serviceLevel;
    return this;
  }

  /**
   * @return the index in the port's P_Key table every QP uses
   */
  public int getPkeyIndex() {
    return pkeyIndex;
  }

  /**
   * @param pkeyIndex P_Key table index, 0..65535 (checked against the port's table when a QP is
   *     made)
   * @return this
   */
  public IbverbsOptions setPkeyIndex(int pkeyIndex) {
    this.pkeyIndex = pkeyIndex;
    return this;
  }

  /**
   * @return whether slices checked end to end ({@code integrity: crc32c}) are checked by reading
   *     the bytes back (the default; see docs/integrity.md)
   */
  public boolean isReadBackVerify() {
    return readBackVerify;
  }

  /**
   * @param readBackVerify false: ibverbs devices do not check integrity (their slices go unchecked
   *     and are not counted as checked), and report the device's whole queue limits
   * @return this
   */
  public IbverbsOptions setReadBackVerify(boolean readBackVerify) {
    this.readBackVerify = readBackVerify;
    return this;
  }

  @Override
  public String toString() {
    return "IbverbsOptions" + toJson().encode();
  }
}
