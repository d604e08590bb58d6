package io.vte.api;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Options of a {@link TransferEngine}, set fluently from code or read from JSON ({@link
 * #fromJson}); {@link #validate()} reports the first bad field by name. Durations are milliseconds
 * in JSON. Authentication, TLS, the metadata store and the ibverbs devices have options classes of
 * their own, nested as {@code auth}, {@code tls}, {@code metadata} and {@code ibverbs}.
 *
 * <p>Every field is declared once, in {@link EngineOptionFields}: its JSON name, type, default,
 * range, getter and setter. JSON reading, writing, the defaults and {@link #validate()} all come
 * from that table; reading is strict (no unknown keys, no coercion: {@code 2.5} for an integer or a
 * string for a number is an {@link ErrorCode#INVALID_CONFIGURATION} naming the field and the
 * value). A size in bytes ({@code sliceSize}) may also be a string such as {@code "64K"}.
 */
public final class EngineOptions {

  /** Longest logical segment name. */
  public static final int MAX_SEGMENT_NAME_LENGTH = 256;

  /** What a field is called in error messages. */
  private static final String LABEL = "engine option";

  /** The fields: JSON names, kinds, defaults, ranges, in {@link #toJson()} order. */
  public static final OptionFields<EngineOptions> FIELDS = EngineOptionFields.FIELDS;

  /** JSON keys, in {@link #toJson()} order. */
  public static final Set<String> KEYS = FIELDS.names();

  private String transport;
  private List<String> devices;
  private List<String> fallbackDevices;
  private IbverbsOptions ibverbs;
  private int workersPerContext;
  private int sliceSize;
  private int retryCount;
  private String integrity;
  private Duration handshakeDeadline;
  private int maxHandshakesInFlight;
  private int cqSize;
  private int endpointCacheSize;
  private int maxOutstandingPerQp;
  private Duration busyPoll;
  private Duration nicBusyPoll;
  private String rpcHost;
  private int rpcPort;
  private String metadataUri;
  private MetadataOptions metadata;
  private String segmentName;
  private AuthOptions auth;
  private TlsOptions tls;
  private Duration railHoldDown;
  private Duration idleConnection;
  private Duration idleEndpoint;
  private Duration qpTimeout;
  private int qpRetryCount;

  /** Creates options with the documented defaults. */
  public EngineOptions() {
    FIELDS.applyDefaults(this);
  }

  /** Copies {@code other}; nested options and the device lists are copied too. */
  public EngineOptions(EngineOptions other) {
    FIELDS.copy(other, this);
  }

  /**
   * Reads options from {@code json}; missing keys keep their defaults. Returns them validated.
   *
   * @throws VteException INVALID_CONFIGURATION naming unknown keys, a value of the wrong type or a
   *     bad value
   */
  public static EngineOptions fromJson(JsonObject json) {
    EngineOptions o = new EngineOptions();
    FIELDS.read(json, o, LABEL, "");
    return o.validate();
  }

  /** Returns the options as JSON, readable by {@link #fromJson}; unset fields left out. */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * Checks every field, nested options included; returns this.
   *
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public EngineOptions validate() {
    FIELDS.validate(this, LABEL, "");
    return this;
  }

  /**
   * Fills in what is left to the host: empty {@code devices} (soft) become {@link
   * DefaultSoftDevices#forThisHost()}, an unset {@code rpcHost} the address of the first soft
   * device (127.0.0.1 for ibverbs). The engine calls this when it opens; these options are not
   * changed.
   *
   * @return a validated copy with devices and rpcHost set
   * @throws VteException INVALID_CONFIGURATION naming the first bad field
   */
  public EngineOptions withHostDefaults() {
    EngineOptions o = new EngineOptions(validate());
    boolean soft = "soft".equals(transport);
    if (soft && o.devices.isEmpty()) {
      o.devices = new ArrayList<>(DefaultSoftDevices.forThisHost().specs());
    }
    if (o.rpcHost == null) {
      o.rpcHost =
          soft ? SoftDeviceSpec.parse(o.devices.get(0)).host() : SoftDeviceSpec.DEFAULT_HOST;
    }
    return o;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EngineOptions other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    JsonObject json = toJson();
    if (auth != null) {
      json.put("auth", auth.toString());
    }
    if (metadata != null && metadata.getEtcdPassword() != null) {
      json.put("metadata", metadata.toString());
    }
    return "EngineOptions" + json.encode();
  }

  /** Returns {@code soft} or {@code ibverbs}. */
  public String getTransport() {
    return transport;
  }

  /** Sets the transport, {@code soft} or {@code ibverbs}; returns this. */
  public EngineOptions setTransport(String transport) {
    this.transport = transport;
    return this;
  }

  /** Returns local device names or soft specs; empty: {@link DefaultSoftDevices} (default). */
  public List<String> getDevices() {
    return devices;
  }

  /** Sets the local device names or specs; empty for {@link DefaultSoftDevices}; returns this. */
  public EngineOptions setDevices(List<String> devices) {
    this.devices = devices == null ? null : new ArrayList<>(devices);
    return this;
  }

  /**
   * Returns soft-verbs device specs ({@code name[@host[:port]]}) an ibverbs engine opens beside its
   * {@link #getDevices() devices}, as a fallback: their rails to a peer carry slices only while no
   * ibverbs rail to that peer is usable (every RDMA port down or held down), and the slices move
   * back once one is; empty (the default) opens none.
   */
  public List<String> getFallbackDevices() {
    return fallbackDevices;
  }

  /** Sets soft device specs opened beside the ibverbs devices (ibverbs only); returns this. */
  public EngineOptions setFallbackDevices(List<String> fallbackDevices) {
    this.fallbackDevices = fallbackDevices == null ? null : new ArrayList<>(fallbackDevices);
    return this;
  }

  /** Returns the ibverbs GID choice, traffic class, service level; null: provider defaults. */
  public IbverbsOptions getIbverbs() {
    return ibverbs;
  }

  /** Sets the ibverbs GID choice, traffic class, service level (null: defaults); returns this. */
  public EngineOptions setIbverbs(IbverbsOptions ibverbs) {
    this.ibverbs = ibverbs;
    return this;
  }

  /** Returns owner verticles per local device. */
  public int getWorkersPerContext() {
    return workersPerContext;
  }

  /** Sets the owner verticles per local device, 1..64; returns this. */
  public EngineOptions setWorkersPerContext(int workersPerContext) {
    this.workersPerContext = workersPerContext;
    return this;
  }

  /** Returns the slice size in bytes. */
  public int getSliceSize() {
    return sliceSize;
  }

  /** Sets the bytes per slice; returns this. */
  public EngineOptions setSliceSize(int sliceSize) {
    this.sliceSize = sliceSize;
    return this;
  }

  /** Returns how many times a failed slice is retried on another rail. */
  public int getRetryCount() {
    return retryCount;
  }

  /** Sets the retries per slice; returns this. */
  public EngineOptions setRetryCount(int retryCount) {
    this.retryCount = retryCount;
    return this;
  }

  /** Returns the end-to-end check, {@code none} or {@code crc32c} ({@link Integrity}). */
  public String getIntegrity() {
    return integrity;
  }

  /** Sets the integrity check, {@code none} or {@code crc32c}; returns this. */
  public EngineOptions setIntegrity(String integrity) {
    this.integrity = integrity;
    return this;
  }

  /** Returns deadline of handshake calls. */
  public Duration getHandshakeDeadline() {
    return handshakeDeadline;
  }

  /** Sets the deadline of handshake calls; returns this. */
  public EngineOptions setHandshakeDeadline(Duration handshakeDeadline) {
    this.handshakeDeadline = handshakeDeadline;
    return this;
  }

  /**
   * Returns connect requests one owner has in flight at most; its further active handshakes wait
   * for a free slot, their deadline starting when they are sent.
   */
  public int getMaxHandshakesInFlight() {
    return maxHandshakesInFlight;
  }

  /**
   * Bounds the active handshakes of each owner, so that a node opening many peers at once (a
   * restart, a new cluster) does not send more connect requests than the peers answer within the
   * handshake deadline.
   *
   * @param maxHandshakesInFlight connect requests in flight per owner, 1..4096
   * @return this
   */
  public EngineOptions setMaxHandshakesInFlight(int maxHandshakesInFlight) {
    this.maxHandshakesInFlight = maxHandshakesInFlight;
    return this;
  }

  /**
   * Returns how long an owner keeps polling its completion queue and its queue of slices after it
   * last found work, before it sleeps until a completion notification or a submission wakes it.
   */
  public Duration getBusyPoll() {
    return busyPoll;
  }

  /**
   * Trades CPU for latency: a completion that lands within the window is reaped without a
   * notification and an event-loop wake-up, which on a small machine cost more than the round trip
   * of a small request, and a request submitted within it finds its owner awake. An owner polls
   * only while at most 1 MiB of its work requests is on the wire, and only half the processors'
   * worth of owners poll at once.
   *
   * @param busyPoll 0..1 s (microsecond resolution), zero to sleep after a few empty cycles
   * @return this
   */
  public EngineOptions setBusyPoll(Duration busyPoll) {
    this.busyPoll = busyPoll;
    return this;
  }

  /**
   * Returns how long each soft-verbs NIC thread keeps polling its sockets after it served a peer's
   * request of at most 16 KiB (the target side of a WRITE or READ) before it sleeps in select
   * (ibverbs devices ignore it).
   */
  public Duration getNicBusyPoll() {
    return nicBusyPoll;
  }

  /**
   * Trades CPU for latency on soft verbs: a peer's next request that arrives within the window is
   * read without the wake-up of a sleeping NIC thread, as a NIC's hardware is always there for it.
   * Only a request of at most 16 KiB starts the window: waking a thread costs about what moving
   * such a request does, while after larger ones polling only takes the core the sender needs. Half
   * the JVM's processors' worth of NIC threads poll at most; the others sleep at once.
   *
   * @param nicBusyPoll 0..1 s (microsecond resolution), default 50 us, zero to sleep at once
   * @return this
   */
  public EngineOptions setNicBusyPoll(Duration nicBusyPoll) {
    this.nicBusyPoll = nicBusyPoll;
    return this;
  }

  /** Returns entries per completion queue. */
  public int getCqSize() {
    return cqSize;
  }

  /** Sets the entries per completion queue; returns this. */
  public EngineOptions setCqSize(int cqSize) {
    this.cqSize = cqSize;
    return this;
  }

  /** Returns endpoints kept per owner before idle ones are evicted. */
  public int getEndpointCacheSize() {
    return endpointCacheSize;
  }

  /** Sets the endpoints per owner; returns this. */
  public EngineOptions setEndpointCacheSize(int endpointCacheSize) {
    this.endpointCacheSize = endpointCacheSize;
    return this;
  }

  /**
   * Returns how long a soft-verbs QP connection may carry nothing before it is closed (its socket
   * and buffers freed; the next transfer reopens it), zero for never.
   */
  public Duration getIdleConnection() {
    return idleConnection;
  }

  /**
   * Sets the idle time after which a soft-verbs QP connection closes, zero for never; returns this.
   */
  public EngineOptions setIdleConnection(Duration idleConnection) {
    this.idleConnection = idleConnection;
    return this;
  }

  /**
   * Returns how long an endpoint may go unused before its owner retires it (QPs destroyed, store
   * slot freed; the next transfer to that peer device connects again), zero for never.
   */
  public Duration getIdleEndpoint() {
    return idleEndpoint;
  }

  /** Sets the unused time after which an endpoint is retired, zero for never; returns this. */
  public EngineOptions setIdleEndpoint(Duration idleEndpoint) {
    this.idleEndpoint = idleEndpoint;
    return this;
  }

  /** Returns signaled work requests outstanding per QP at most. */
  public int getMaxOutstandingPerQp() {
    return maxOutstandingPerQp;
  }

  /** Sets the outstanding work requests per QP; returns this. */
  public EngineOptions setMaxOutstandingPerQp(int maxOutstandingPerQp) {
    this.maxOutstandingPerQp = maxOutstandingPerQp;
    return this;
  }

  /**
   * Returns host the handshake service binds to and advertises; null (the default): the first soft
   * device's address.
   */
  public String getRpcHost() {
    return rpcHost;
  }

  /** Sets the handshake host, null for the first soft device's address; returns this. */
  public EngineOptions setRpcHost(String rpcHost) {
    this.rpcHost = rpcHost;
    return this;
  }

  /** Returns handshake port, 0 for any free port. */
  public int getRpcPort() {
    return rpcPort;
  }

  /** Sets the handshake port, 0 for any free port; returns this. */
  public EngineOptions setRpcPort(int rpcPort) {
    this.rpcPort = rpcPort;
    return this;
  }

  /** Returns {@code p2p} or {@code etcd://...}. */
  public String getMetadataUri() {
    return metadataUri;
  }

  /** Sets the metadata URI, {@code p2p} or {@code etcd://...}; returns this. */
  public EngineOptions setMetadataUri(String metadataUri) {
    this.metadataUri = metadataUri;
    return this;
  }

  /**
   * Returns the metadata store's options; null (the default) for {@link MetadataOptions}' defaults.
   */
  public MetadataOptions getMetadata() {
    return metadata;
  }

  /** Sets the metadata store's options; null for the defaults; returns this. */
  public EngineOptions setMetadata(MetadataOptions metadata) {
    this.metadata = metadata;
    return this;
  }

  /**
   * Returns the logical name this node publishes its segment under; null means its server name
   * (host:port).
   */
  public String getSegmentName() {
    return segmentName;
  }

  /**
   * Sets the logical segment name peers open this node by, independent of its address; null for the
   * server name (host:port); returns this.
   */
  public EngineOptions setSegmentName(String segmentName) {
    this.segmentName = segmentName;
    return this;
  }

  /** Returns handshake authentication options; null for none. */
  public AuthOptions getAuth() {
    return auth;
  }

  /** Sets the handshake authentication options; returns this. */
  public EngineOptions setAuth(AuthOptions auth) {
    this.auth = auth;
    return this;
  }

  /** Returns handshake TLS options; null for plain text. */
  public TlsOptions getTls() {
    return tls;
  }

  /** Sets the handshake TLS options; returns this. */
  public EngineOptions setTls(TlsOptions tls) {
    this.tls = tls;
    return this;
  }

  /** Returns how long a rail with repeated errors is paused before it is probed again. */
  public Duration getRailHoldDown() {
    return railHoldDown;
  }

  /** Sets the pause of a failing rail; returns this. */
  public EngineOptions setRailHoldDown(Duration railHoldDown) {
    this.railHoldDown = railHoldDown;
    return this;
  }

  /** Returns QP transport timeout per attempt. */
  public Duration getQpTimeout() {
    return qpTimeout;
  }

  /** Sets the QP transport timeout; returns this. */
  public EngineOptions setQpTimeout(Duration qpTimeout) {
    this.qpTimeout = qpTimeout;
    return this;
  }

  /** Returns QP transport retries, 0..7. */
  public int getQpRetryCount() {
    return qpRetryCount;
  }

  /** Sets the QP transport retries, 0..7; returns this. */
  public EngineOptions setQpRetryCount(int qpRetryCount) {
    this.qpRetryCount = qpRetryCount;
    return this;
  }
}
