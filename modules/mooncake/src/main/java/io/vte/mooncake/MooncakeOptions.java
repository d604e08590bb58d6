package io.vte.mooncake;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;

/**
 * Settings of a {@link MooncakeTransport} (initiator) and a {@link MooncakeTarget}. Setters check
 * their value and throw {@link VteException} with {@link ErrorCode#INVALID_CONFIGURATION} naming
 * it.
 */
public final class MooncakeOptions {

  private String host = "127.0.0.1";
  private int handshakePort;
  private int dataPort;
  private int advertisedProtocolVersion = 2;
  private boolean forceProtocolV1;
  private int lanesPerPeer = 4;
  private int sliceBytes = 1 << 20;
  private Duration connectTimeout = Duration.ofSeconds(5);
  private Duration stallTimeout = Duration.ofSeconds(10);
  private int handshakeMaxLength = HandshakeFrame.DEFAULT_MAX_LENGTH;

  /** Defaults: host 127.0.0.1, ports chosen by the kernel, protocol 2, 4 lanes, 1 MiB slices. */
  public MooncakeOptions() {}

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
    if (host == null || host.isBlank() || host.contains(":")) {
      throw invalid("host", host, "an IPv4 address or host name");
    }
    this.host = host;
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
    this.handshakePort = port(port, "handshakePort");
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
    this.dataPort = port(port, "dataPort");
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
    if (version != 1 && version != 2) {
      throw invalid("advertisedProtocolVersion", version, "1 or 2");
    }
    this.advertisedProtocolVersion = version;
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
    if (lanes < 1 || lanes > 64) {
      throw invalid("lanesPerPeer", lanes, "1..64");
    }
    this.lanesPerPeer = lanes;
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
    if (bytes < 4096 || bytes > (64 << 20)) {
      throw invalid("sliceBytes", bytes, "4096..67108864");
    }
    this.sliceBytes = bytes;
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
    this.connectTimeout = duration(timeout, "connectTimeout");
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
    this.stallTimeout = duration(timeout, "stallTimeout");
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
    if (bytes < 1024 || bytes > (128 << 20)) {
      throw invalid("handshakeMaxLength", bytes, "1024..134217728");
    }
    this.handshakeMaxLength = bytes;
    return this;
  }

  private static int port(int port, String field) {
    if (port < 0 || port > 65535) {
      throw invalid(field, port, "0..65535");
    }
    return port;
  }

  private static Duration duration(Duration d, String field) {
    if (d == null || d.isNegative() || d.isZero() || d.compareTo(Duration.ofMinutes(10)) > 0) {
      throw invalid(field, d, "positive, at most 10 minutes");
    }
    return d;
  }

  private static VteException invalid(String field, Object value, String range) {
    return new VteException(
        ErrorCode.INVALID_CONFIGURATION,
        "Mooncake option " + field + " = " + value + " not in " + range);
  }
}
