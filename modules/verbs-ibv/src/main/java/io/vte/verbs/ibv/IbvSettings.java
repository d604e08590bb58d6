package io.vte.verbs.ibv;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import io.vte.api.IbverbsOptions;
import io.vte.api.OptionFields;
import io.vte.api.OptionKind;
import io.vte.api.VteException;
import io.vte.verbs.ibv.device.IbvGidType;

/**
 * Options of the ibverbs provider, declared once in {@link #FIELDS} (JSON names, defaults, ranges)
 * and validated by {@link IbvVerbsProviderFactory#create(Object)}. The fields an engine's {@code
 * ibverbs} options also have ({@link IbverbsOptions}: the GID choice, traffic class, service level,
 * P_Key index, READ-back verify) take their defaults and ranges from there.
 *
 * <p>JSON keys: {@code gidIndex} (GID index to use on every port, or -1 to choose automatically:
 * RoCE v2 / IPv4-mapped first, link-local last), {@code gidNetdev} (only GIDs of this netdev, e.g.
 * {@code eth2}), {@code gidAddress} (only the GID of this IP address literal), {@code gidType}
 * ({@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}), {@code trafficClass} (GRH traffic
 * class of every QP, 0..255: DSCP in the upper 6 bits), {@code serviceLevel} (0..15; on RoCE the
 * 802.1p priority of a lossless class), {@code pkeyIndex} (index in the port's P_Key table, checked
 * against the table's length at INIT), {@code maxRdAtomic} (outstanding RDMA READs per QP as
 * initiator and responder, 1..16, lowered to the device's {@code max_qp_init_rd_atom}/{@code
 * max_qp_rd_atom}), {@code minRnrTimer} (RNR NAK timer code given at RTR, 0..31), {@code
 * eventPollMillis} (how long the event threads wait per poll before checking for close), {@code
 * forkInit} (call {@code ibv_fork_init} before any other verbs call, so registered memory survives
 * the JVM forking a child; off by default: the JVM forks only to start processes, whose children
 * never touch registered memory, and with it on a bad registration reads as ENOMEM instead of the
 * kernel's EFAULT), {@code readBackVerify} (check work requests flagged {@code WrFlags.INTEGRITY}
 * by reading the bytes back, {@link ReadBackVerifier}; on by default, so that an engine's {@code
 * integrity: crc32c} checks on ibverbs; off: the context says it does not check, and queue limits
 * are the device's own), {@code preferredAddress} (an IP address literal whose interface's GIDs the
 * automatic choice prefers; an engine passes the address it serves on).
 */
public final class IbvSettings {

  /** What an option is called in messages. */
  static final String LABEL = "ibverbs option";

  /** The fields, in JSON order. */
  public static final OptionFields<IbvSettings> FIELDS =
      OptionFields.of(
          IbverbsOptions.GID_INDEX.as("gidIndex", s -> s.gidIndex, IbvSettings::setGidIndex),
          IbverbsOptions.GID_NETDEV.as("gidNetdev", s -> s.gidNetdev, IbvSettings::setGidNetdev),
          IbverbsOptions.GID_ADDRESS.as(
              "gidAddress", s -> s.gidAddress, IbvSettings::setGidAddress),
          IbverbsOptions.GID_TYPE.as("gidType", s -> s.gidType, IbvSettings::setGidType),
          IbverbsOptions.TRAFFIC_CLASS.as(
              "trafficClass", s -> s.trafficClass, IbvSettings::setTrafficClass),
          IbverbsOptions.SERVICE_LEVEL.as(
              "serviceLevel", s -> s.serviceLevel, IbvSettings::setServiceLevel),
          IbverbsOptions.PKEY_INDEX.as("pkeyIndex", s -> s.pkeyIndex, IbvSettings::setPkeyIndex),
          field("maxRdAtomic", OptionKind.INT, 16, s -> s.maxRdAtomic, IbvSettings::setMaxRdAtomic)
              .check(n -> n >= 1 && n <= 16, "1..16"),
          field("minRnrTimer", OptionKind.INT, 12, s -> s.minRnrTimer, IbvSettings::setMinRnrTimer)
              .check(n -> n >= 0 && n <= 31, "0..31"),
          field(
                  "eventPollMillis",
                  OptionKind.INT,
                  100,
                  s -> s.eventPollMillis,
                  IbvSettings::setEventPollMillis)
              .check(n -> n >= 1 && n <= 10_000, "1..10000"),
          field("forkInit", OptionKind.BOOLEAN, false, s -> s.forkInit, IbvSettings::setForkInit),
          IbverbsOptions.READ_BACK_VERIFY.as(
              "readBackVerify", s -> s.readBackVerify, IbvSettings::setReadBackVerify),
          field(
                  "preferredAddress",
                  OptionKind.STRING,
                  null,
                  s -> s.preferredAddress,
                  IbvSettings::setPreferredAddress)
              .check(
                  a -> a == null || a.matches("[0-9A-Fa-f:.]+"),
                  "an IP address literal (unset: none)"));

  private int gidIndex;
  private String gidNetdev;
  private String gidAddress;
  private String gidType;
  private int trafficClass;
  private int serviceLevel;
  private int pkeyIndex;
  private int maxRdAtomic;
  private int minRnrTimer;
  private int eventPollMillis;
  private boolean forkInit;
  private boolean readBackVerify;
  private String preferredAddress;

  /**
   * Creates the defaults: automatic GID of any netdev, address and type, traffic class 0, service
   * level 0, P_Key index 0, 16 outstanding READs, RNR timer 12 (0.64 ms), 100 ms event polls, no
   * {@code ibv_fork_init}, READ-back verify on.
   */
  public IbvSettings() {
    FIELDS.applyDefaults(this);
  }

  /**
   * Copies settings.
   *
   * @param other the settings to copy
   */
  public IbvSettings(IbvSettings other) {
    FIELDS.copy(other, this);
  }

  /**
   * @param json the options as JSON; absent keys keep their defaults
   * @return the settings, validated
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad value
   */
  public static IbvSettings fromJson(JsonObject json) {
    IbvSettings s = new IbvSettings();
    FIELDS.read(json, s, LABEL, "");
    return s.validate();
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public IbvSettings validate() {
    FIELDS.validate(this, LABEL, "");
    return this;
  }

  /**
   * @return the options as JSON, readable by {@link #fromJson}
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return the GID index of every port, -1 to choose automatically
   */
  public int gidIndex() {
    return gidIndex;
  }

  /**
   * @param gidIndex -1..255 (-1: automatic)
   * @return this
   */
  public IbvSettings setGidIndex(int gidIndex) {
    this.gidIndex = gidIndex;
    return this;
  }

  /**
   * @return only GIDs of this netdev are chosen, null for any
   */
  public String gidNetdev() {
    return gidNetdev;
  }

  /**
   * @param gidNetdev a netdev name, or null for any
   * @return this
   */
  public IbvSettings setGidNetdev(String gidNetdev) {
    this.gidNetdev = gidNetdev;
    return this;
  }

  /**
   * @return only the GID of this IP address literal is chosen, null for any
   */
  public String gidAddress() {
    return gidAddress;
  }

  /**
   * @param gidAddress an IP address literal, or null for any
   * @return this
   */
  public IbvSettings setGidAddress(String gidAddress) {
    this.gidAddress = gidAddress;
    return this;
  }

  /**
   * @return only GIDs of this type are chosen ({@link IbvGidType#UNKNOWN} for any)
   */
  public IbvGidType gidType() {
    return IbvGidType.parse(gidType);
  }

  /**
   * @param gidType {@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}
   * @return this
   */
  public IbvSettings setGidType(String gidType) {
    this.gidType = gidType;
    return this;
  }

  /**
   * @return the GRH traffic class of every QP
   */
  public int trafficClass() {
    return trafficClass;
  }

  /**
   * @param trafficClass 0..255 (DSCP in the upper 6 bits)
   * @return this
   */
  public IbvSettings setTrafficClass(int trafficClass) {
    this.trafficClass = trafficClass;
    return this;
  }

  /**
   * @return the service level of every QP
   */
  public int serviceLevel() {
    return serviceLevel;
  }

  /**
   * @param serviceLevel 0..15
   * @return this
   */
  public IbvSettings setServiceLevel(int serviceLevel) {
    this.serviceLevel = serviceLevel;
    return this;
  }

  /**
   * @return the P_Key table index every QP uses
   */
  public int pkeyIndex() {
    return pkeyIndex;
  }

  /**
   * @param pkeyIndex 0..65535
   * @return this
   */
  public IbvSettings setPkeyIndex(int pkeyIndex) {
    this.pkeyIndex = pkeyIndex;
    return this;
  }

  /**
   * @return outstanding RDMA READs per QP as initiator and responder
   */
  public int maxRdAtomic() {
    return maxRdAtomic;
  }

  /**
   * @param maxRdAtomic 1..16
   * @return this
   */
  public IbvSettings setMaxRdAtomic(int maxRdAtomic) {
    this.maxRdAtomic = maxRdAtomic;
    return this;
  }

  /**
   * @return the RNR NAK timer code given at RTR
   */
  public int minRnrTimer() {
    return minRnrTimer;
  }

  /**
   * @param minRnrTimer 0..31
   * @return this
   */
  public IbvSettings setMinRnrTimer(int minRnrTimer) {
    this.minRnrTimer = minRnrTimer;
    return this;
  }

  /**
   * @return how long the event threads wait per poll, in milliseconds
   */
  public int eventPollMillis() {
    return eventPollMillis;
  }

  /**
   * @param eventPollMillis 1..10000
   * @return this
   */
  public IbvSettings setEventPollMillis(int eventPollMillis) {
    this.eventPollMillis = eventPollMillis;
    return this;
  }

  /**
   * @return whether {@code ibv_fork_init} is called first
   */
  public boolean forkInit() {
    return forkInit;
  }

  /**
   * @param forkInit whether to call {@code ibv_fork_init} before any other verbs call
   * @return this
   */
  public IbvSettings setForkInit(boolean forkInit) {
    this.forkInit = forkInit;
    return this;
  }

  /**
   * @return whether work requests flagged {@code WrFlags.INTEGRITY} are checked by reading the
   *     bytes back ({@link ReadBackVerifier})
   */
  public boolean readBackVerify() {
    return readBackVerify;
  }

  /**
   * @param readBackVerify whether to check work requests flagged {@code WrFlags.INTEGRITY} by
   *     reading the bytes back
   * @return this
   */
  public IbvSettings setReadBackVerify(boolean readBackVerify) {
    this.readBackVerify = readBackVerify;
    return this;
  }

  /**
   * @return the address whose interface's GIDs the automatic choice prefers, or null
   */
  public String preferredAddress() {
    return preferredAddress;
  }

  /**
   * @param preferredAddress an IP address literal, or null
   * @return this
   */
  public IbvSettings setPreferredAddress(String preferredAddress) {
    this.preferredAddress = preferredAddress;
    return this;
  }

  @Override
  public String toString() {
    return "IbvSettings" + toJson().encode();
  }
}
