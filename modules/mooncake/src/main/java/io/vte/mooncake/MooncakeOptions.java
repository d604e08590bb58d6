package io.vte.mooncake;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import io.vte.api.VteException;
import java.time.Duration;

/**
 * Settings of a {@link MooncakeTransport} (initiator) and a {@link MooncakeTarget}, on the field
 * tables every VTE option uses ({@link #FIELDS}: name, type, default and range declared once; JSON
 * {@link #fromJson}/{@link #toJson}). Setters check their value and throw {@link VteException} with
 * {@link ErrorCode#INVALID_CONFIGURATION} naming it.
 */
public final class MooncakeOptions {

  /** What an option is called in messages. */
  private static final String LABEL = "Mooncake option";

  /** The field {@code host}. */
  public static final Field<MooncakeOptions, String> HOST =
      OptionFields.field(
              "host",
              OptionKind.STRING,
              "127.0.0.1",
              MooncakeOptions::getHost,
              MooncakeOptions::setHost)
          .check(
              h -> h != null && !h.isBlank() && !h.contains(":"), "an IPv4 address or host name");

  /** The field {@code handshakePort}. */
  public static final Field<MooncakeOptions, Integer> HANDSHAKE_PORT =
      OptionFields.field(
              "handshakePort",
              OptionKind.INT,
              0,
              MooncakeOptions::getHandshakePort,
              MooncakeOptions::setHandshakePort)
          .check(MooncakeOptions::isPort, "0..65535");

  /** The field {@code dataPort}. */
  public static final Field<MooncakeOptions, Integer> DATA_PORT =
      OptionFields.field(
              "dataPort",
              OptionKind.INT,
              0,
              MooncakeOptions::getDataPort,
              MooncakeOptions::setDataPort)
          .check(MooncakeOptions::isPort, "0..65535");

  /** The field {@code advertisedProtocolVersion}. */
  public static final Field<MooncakeOptions, Integer> ADVERTISED_PROTOCOL_VERSION =
      OptionFields.field(
              "advertisedProtocolVersion",
              OptionKind.INT,
              2,
              MooncakeOptions::getAdvertisedProtocolVersion,
              MooncakeOptions::setAdvertisedProtocolVersion)
          .check(v -> v != null && (v == 1 || v == 2), "1 or 2");

  /** The field {@code forceProtocolV1}. */
  public static final Field<MooncakeOptions, Boolean> FORCE_PROTOCOL_V1 =
      OptionFields.field(
          "forceProtocolV1",
          OptionKind.BOOLEAN,
          false,
          MooncakeOptions::isForceProtocolV1,
          MooncakeOptions::setForceProtocolV1);

  /** The field {@code lanesPerPeer}. */
  public static final Field<MooncakeOptions, Integer> LANES_PER_PEER =
      OptionFields.field(
              "lanesPerPeer",
              OptionKind.INT,
              4,
              MooncakeOptions::getLanesPerPeer,
              MooncakeOptions::setLanesPerPeer)
          .check(n -> n != null && n >= 1 && n <= 64, "1..64");

  /** The field {@code sliceBytes}. */
  public static final Field<MooncakeOptions, Integer> SLICE_BYTES =
      OptionFields.field(
              "sliceBytes",
              OptionKind.BYTES,
              1 << 20,
              MooncakeOptions::getSliceBytes,
              MooncakeOptions::setSliceBytes)
          .check(n -> n != null && n >= 4096 && n <= (64 << 20), "4096..67108864");

  /** The field {@code connectTimeoutMs}. */
  public static final Field<MooncakeOptions, Duration> CONNECT_TIMEOUT =
      OptionFields.field(
              "connectTimeoutMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(5),
              MooncakeOptions::getConnectTimeout,
              MooncakeOptions::setConnectTimeout)
          .check(MooncakeOptions::isTimeout, "positive, at most 10 minutes");

  /** The field {@code stallTimeoutMs}. */
  public static final Field<MooncakeOptions, Duration> STALL_TIMEOUT =
      OptionFields.field(
              "stallTimeoutMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(10),
              MooncakeOptions::getStallTimeout,
              MooncakeOptions::setStallTimeout)
          .check(MooncakeOptions::isTimeout, "positive, at most 10 minutes");

  /** The field {@code handshakeMaxLength}. */
  public static final Field<MooncakeOptions, Integer> HANDSHAKE_MAX_LENGTH =
      OptionFields.field(
              "handshakeMaxLength",
              OptionKind.BYTES,
              HandshakeFrame.DEFAULT_MAX_LENGTH,
              MooncakeOptions::getHandshakeMaxLength,
              MooncakeOptions::setHandshakeMaxLength)
          .check(n -> n != null && n >= 1024 && n <= (128 << 20), "1024..134217728");

  /** The fields: JSON names, kinds, defaults, ranges. */
  public static final OptionFields<MooncakeOptions> FIELDS =
      OptionFields.of(
          HOST,
          HANDSHAKE_PORT,
          DATA_PORT,
          ADVERTISED_PROTOCOL_VERSION,
          FORCE_PROTOCOL_V1,
          LANES_PER_PEER,
          SLICE_BYTES,
          CONNECT_TIMEOUT,
          STALL_TIMEOUT,
          HANDSHAKE_MAX_LENGTH);

  private String host;
  private int handshakePort;
  private int dataPort;
  private int advertisedProtocolVersion;
  private boolean forceProtocolV1;
  private int lanesPerPeer;
  private int sliceBytes;
  private Duration connectTimeout;
  private Duration stallTimeout;
  private int handshakeMaxLength;

  /** Defaults: host 127.0.0.1, ports chosen by the kernel, protocol 2, 4 lanes, 1 MiB slices. */
  public MooncakeOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json the options ({@link #FIELDS}' names; durations in milliseconds)
   * @return them, types checked, ranges checked by the setters
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad value
   */
  public static MooncakeOptions fromJson(JsonObject json) {
    MooncakeOptions o = new MooncakeOptions();
    FIELDS.read(json, o, LABEL, "");
    return o;
  }

  /**
   * @return the options as JSON
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  private static boolean isPort(Integer port) {
    return port != null && port >= 0 && port <= 65535;
  }

  private static boolean isTimeout(Duration d) {
    return d != null && !d.isNegative() && !d.isZero() && d.compareTo(Duration.ofMinutes(10)) <= 0;
  }

  /**
   * @return the address a target listens on and names itself by ({@code host:handshakePort})
   */
  public String getHost() {
    return host;
  }

  /**
   * @param host the address a target listens on and puts in its server name
   */
  public MooncakeOptions setHost(String host) {
    this.host = HOST.require(host, LABEL);
    return this;
  }

  /**
   * @return the target's handshake (RPC) port; 0 = chosen by the kernel
   */
  public int getHandshakePort() {
    return handshakePort;
  }

  /**
   * @param port the target's handshake (RPC) port; 0 = chosen by the kernel
   */
  public MooncakeOptions setHandshakePort(int port) {
    this.handshakePort = HANDSHAKE_PORT.require(port, LABEL);
    return this;
  }

  /**
   * @return the target's data port; 0 = chosen by the kernel
   */
  public int getDataPort() {
    return dataPort;
  }

  /**
   * @param port the target's data port; 0 = chosen by the kernel
   */
  public MooncakeOptions setDataPort(int port) {
    this.dataPort = DATA_PORT.require(port, LABEL);
    return this;
  }

  /**
   * @return the {@code tcp_proto_version} a target advertises (1 or 2)
   */
  public int getAdvertisedProtocolVersion() {
    return advertisedProtocolVersion;
  }

  /**
   * @param version the {@code tcp_proto_version} a target advertises: 2 (acknowledged framing) or 1
   *     (initiators then send unacknowledged v1 requests); the target accepts both framings anyway
   */
  public MooncakeOptions setAdvertisedProtocolVersion(int version) {
    this.advertisedProtocolVersion = ADVERTISED_PROTOCOL_VERSION.require(version, LABEL);
    return this;
  }

  /**
   * @return whether the initiator speaks v1 even to v2 segments (Mooncake's MC_TCP_PROTO=1)
   */
  public boolean isForceProtocolV1() {
    return forceProtocolV1;
  }

  /**
   * @param force speak v1 even to v2 segments, like Mooncake's {@code MC_TCP_PROTO=1}: a v1 WRITE
   *     has no acknowledgement, so it completes when its payload has left this process
   */
  public MooncakeOptions setForceProtocolV1(boolean force) {
    this.forceProtocolV1 = force;
    return this;
  }

  /**
   * @return connections an initiator keeps to one data listener
   */
  public int getLanesPerPeer() {
    return lanesPerPeer;
  }

  /**
   * @param lanes connections an initiator keeps to one data listener, 1..64
   */
  public MooncakeOptions setLanesPerPeer(int lanes) {
    this.lanesPerPeer = LANES_PER_PEER.require(lanes, LABEL);
    return this;
  }

  /**
   * @return the largest request an initiator sends on one lane; longer requests are split
   */
  public int getSliceBytes() {
    return sliceBytes;
  }

  /**
   * @param bytes the largest request sent on one lane, 4 KiB..64 MiB
   */
  public MooncakeOptions setSliceBytes(int bytes) {
    this.sliceBytes = SLICE_BYTES.require(bytes, LABEL);
    return this;
  }

  /**
   * @return how long a connection attempt may take
   */
  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  /**
   * @param timeout how long a connection attempt may take (positive, at most 10 minutes)
   */
  public MooncakeOptions setConnectTimeout(Duration timeout) {
    this.connectTimeout = CONNECT_TIMEOUT.require(timeout, LABEL);
    return this;
  }

  /**
   * @return how long a target waits for the rest of a frame or payload a peer has started before it
   *     closes the connection
   */
  public Duration getStallTimeout() {
    return stallTimeout;
  }

  /**
   * @param timeout how long a target waits for a peer that stopped mid-frame or mid-payload
   */
  public MooncakeOptions setStallTimeout(Duration timeout) {
    this.stallTimeout = STALL_TIMEOUT.require(timeout, LABEL);
    return this;
  }

  /**
   * @return the largest handshake frame accepted
   */
  public int getHandshakeMaxLength() {
    return handshakeMaxLength;
  }

  /**
   * @param bytes the largest handshake frame accepted, 1 KiB..128 MiB (Mooncake's default 1 MiB)
   */
  public MooncakeOptions setHandshakeMaxLength(int bytes) {
    this.handshakeMaxLength = HANDSHAKE_MAX_LENGTH.require(bytes, LABEL);
    return this;
  }
}
