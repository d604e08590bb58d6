package io.vte.api;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Options of a {@link TransferEngine}, set fluently from code or read from JSON ({@link
 * #fromJson}); {@link #validate()} reports the first bad field by name. Durations are milliseconds
 * in JSON. Authentication, TLS and the metadata store have options classes of their own ({@link
 * AuthOptions}, {@link TlsOptions}, {@link MetadataOptions}), nested as {@code auth}, {@code tls}
 * and {@code metadata}.
 *
 * <p>Every field is declared once, in {@link #FIELDS}: its JSON name, type, default, range, getter
 * and setter. JSON reading, writing, the defaults and {@link #validate()} all come from that table;
 * reading is strict (no unknown keys, no coercion: {@code 2.5} for an integer, a number in a list
 * of strings or a string for a number is an {@link ErrorCode#INVALID_CONFIGURATION} naming the
 * field and the value). A size in bytes ({@code sliceSize}) may also be a string with a binary
 * suffix as on the command line, {@code "64K"} ({@link OptionFields#BYTES}).
 */
public final class EngineOptions {

  /** Longest logical segment name. */
  public static final int MAX_SEGMENT_NAME_LENGTH = 256;

  /** What a field is called in error messages. */
  private static final String LABEL = "engine option";

  /** The field {@code workersPerContext}. */
  public static final OptionFields.Field<EngineOptions, Integer> WORKERS_PER_CONTEXT =
      field(
              "workersPerContext",
              OptionFields.INT,
              2,
              EngineOptions::getWorkersPerContext,
              EngineOptions::setWorkersPerContext)
          .check(n -> n >= 1 && n <= 64, "1..64");

  /** The field {@code handshakeDeadlineMs}. */
  public static final OptionFields.Field<EngineOptions, Duration> HANDSHAKE_DEADLINE =
      field(
              "handshakeDeadlineMs",
              OptionFields.MILLIS,
              Duration.ofSeconds(5),
              EngineOptions::getHandshakeDeadline,
              EngineOptions::setHandshakeDeadline)
          .check(EngineOptions::positive, "positive");

  /** The field {@code maxHandshakesInFlight}. */
  public static final OptionFields.Field<EngineOptions, Integer> MAX_HANDSHAKES_IN_FLIGHT =
      field(
              "maxHandshakesInFlight",
              OptionFields.INT,
              16,
              EngineOptions::getMaxHandshakesInFlight,
              EngineOptions::setMaxHandshakesInFlight)
          .check(n -> n >= 1 && n <= 4096, "1..4096");

  /** The field {@code cqSize}. */
  public static final OptionFields.Field<EngineOptions, Integer> CQ_SIZE =
      field("cqSize", OptionFields.INT, 4096, EngineOptions::getCqSize, EngineOptions::setCqSize)
          .check(n -> n >= 1 && n <= (1 << 22), "1..4194304");

  /** The field {@code endpointCacheSize}. */
  public static final OptionFields.Field<EngineOptions, Integer> ENDPOINT_CACHE_SIZE =
      field(
              "endpointCacheSize",
              OptionFields.INT,
              256,
              EngineOptions::getEndpointCacheSize,
              EngineOptions::setEndpointCacheSize)
          .check(n -> n >= 1, ">= 1");

  /** The field {@code busyPollMicros}. */
  public static final OptionFields.Field<EngineOptions, Duration> BUSY_POLL =
      field(
              "busyPollMicros",
              OptionFields.MICROS,
              Duration.of(100, ChronoUnit.MICROS),
              EngineOptions::getBusyPoll,
              EngineOptions::setBusyPoll)
          .check(
              d -> d != null && !d.isNegative() && d.compareTo(Duration.ofSeconds(1)) <= 0,
              "0..1000000");

  /** The field {@code qpRetryCount}. */
  public static final OptionFields.Field<EngineOptions, Integer> QP_RETRY_COUNT =
      field(
              "qpRetryCount",
              OptionFields.INT,
              7,
              EngineOptions::getQpRetryCount,
              EngineOptions::setQpRetryCount)
          .check(n -> n >= 0 && n <= 7, "0..7");

  /** The field {@code idleEndpointMs}. */
  public static final OptionFields.Field<EngineOptions, Duration> IDLE_ENDPOINT =
      field(
              "idleEndpointMs",
              OptionFields.MILLIS,
              Duration.ofMinutes(5),
              EngineOptions::getIdleEndpoint,
              EngineOptions::setIdleEndpoint)
          .check(
              d -> d != null && !d.isNegative() && d.compareTo(Duration.ofDays(1)) <= 0,
              "0..86400000 (0 = never)");

  /** The fields: JSON names, kinds, defaults, ranges, in {@link #toJson()} order. */
  public static final OptionFields<EngineOptions> FIELDS =
      OptionFields.of(
          field(
                  "transport",
                  OptionFields.STRING,
                  "soft",
                  EngineOptions::getTransport,
                  EngineOptions::setTransport)
              .check(t -> "soft".equals(t) || "ibverbs".equals(t), "soft or ibverbs"),
          field(
                  "devices",
                  OptionFields.STRING_LIST,
                  List.of(),
                  EngineOptions::getDevices,
                  EngineOptions::setDevices)
              .check(
                  (o, d) -> nonBlank(d) && (!d.isEmpty() || !"ibverbs".equals(o.transport)),
                  o ->
                      "non-blank devices (empty: soft devices chosen from the host's interfaces; ibverbs needs device names)"),
          field(
                  "fallbackDevices",
                  OptionFields.STRING_LIST,
                  List.of(),
                  EngineOptions::getFallbackDevices,
                  EngineOptions::setFallbackDevices)
              .check(
                  (o, d) -> nonBlank(d) && (d.isEmpty() || "ibverbs".equals(o.transport)),
                  o ->
                      "non-blank soft device specs name[@host[:port]], only with transport ibverbs (empty: none)"),
          field(
              "ibverbs",
              OptionFields.object(IbverbsOptions.FIELDS, IbverbsOptions::new),
              null,
              EngineOptions::getIbverbs,
              EngineOptions::setIbverbs),
          WORKERS_PER_CONTEXT,
          field(
                  "sliceSize",
                  OptionFields.BYTES,
                  64 * 1024,
                  EngineOptions::getSliceSize,
                  EngineOptions::setSliceSize)
              .check(n -> n >= 4096 && n <= (1 << 30), "4096..1073741824 bytes"),
          field(
                  "retryCount",
                  OptionFields.INT,
                  4,
                  EngineOptions::getRetryCount,
                  EngineOptions::setRetryCount)
              .check(n -> n >= 0 && n <= 64, "0..64"),
          HANDSHAKE_DEADLINE,
          MAX_HANDSHAKES_IN_FLIGHT,
          CQ_SIZE,
          ENDPOINT_CACHE_SIZE,
          field(
                  "maxOutstandingPerQp",
                  OptionFields.INT,
                  32,
                  EngineOptions::getMaxOutstandingPerQp,
                  EngineOptions::setMaxOutstandingPerQp)
              .check((o, n) -> n >= 1 && n <= o.cqSize, o -> "1..cqSize (" + o.cqSize + ")"),
          BUSY_POLL,
          field(
                  "nicBusyPollMicros",
                  OptionFields.MICROS,
                  Duration.of(50, ChronoUnit.MICROS),
                  EngineOptions::getNicBusyPoll,
                  EngineOptions::setNicBusyPoll)
              .check(
                  d -> d != null && !d.isNegative() && d.compareTo(Duration.ofSeconds(1)) <= 0,
                  "0..1000000"),
          field(
                  "rpcHost",
                  OptionFields.STRING,
                  null,
                  EngineOptions::getRpcHost,
                  EngineOptions::setRpcHost)
              .check(
                  h -> h == null || !h.isBlank(),
                  "a host name or address (unset: the address of the first soft device)"),
          field(
                  "rpcPort",
                  OptionFields.INT,
                  0,
                  EngineOptions::getRpcPort,
                  EngineOptions::setRpcPort)
              .check(p -> p >= 0 && p <= 65535, "0..65535 (0 = any free port)"),
          field(
                  "metadataUri",
                  OptionFields.STRING,
                  "p2p",
                  EngineOptions::getMetadataUri,
                  EngineOptions::setMetadataUri)
              .check(
                  EngineOptions::validMetadataUri,
                  "p2p, etcd://host:port[,host:port...] or etcds://host:port[,host:port...]"),
          field(
              "metadata",
              OptionFields.object(MetadataOptions.FIELDS, MetadataOptions::new),
              null,
              EngineOptions::getMetadata,
              EngineOptions::setMetadata),
          field(
                  "segmentName",
                  OptionFields.STRING,
                  null,
                  EngineOptions::getSegmentName,
                  EngineOptions::setSegmentName)
              .check(
                  n ->
                      n == null
                          || (!n.isBlank()
                              && n.length() <= MAX_SEGMENT_NAME_LENGTH
                              && n.chars().noneMatch(c -> c <= ' ' || c == 0x7f)),
                  "1.."
                      + MAX_SEGMENT_NAME_LENGTH
                      + " printable characters without spaces (unset: the server name)"),
          field(
              "auth",
              OptionFields.object(AuthOptions.FIELDS, AuthOptions::new),
              null,
              EngineOptions::getAuth,
              EngineOptions::setAuth),
          field(
              "tls",
              OptionFields.object(TlsOptions.FIELDS, TlsOptions::new),
              null,
              EngineOptions::getTls,
              EngineOptions::setTls),
          field(
                  "railHoldDownMs",
                  OptionFields.MILLIS,
                  Duration.ofSeconds(2),
                  EngineOptions::getRailHoldDown,
                  EngineOptions::setRailHoldDown)
              .check(d -> d != null && !d.isNegative(), ">= 0"),
          field(
                  "qpTimeoutMs",
                  OptionFields.MILLIS,
                  Duration.ofSeconds(1),
                  EngineOptions::getQpTimeout,
                  EngineOptions::setQpTimeout)
              .check(EngineOptions::positive, "positive"),
          QP_RETRY_COUNT,
          field(
                  "idleConnectionMs",
                  OptionFields.MILLIS,
                  Duration.ofSeconds(60),
                  EngineOptions::getIdleConnection,
                  EngineOptions::setIdleConnection)
              .check(
                  d -> d != null && !d.isNegative() && d.compareTo(Duration.ofDays(1)) <= 0,
                  "0..86400000 (0 = never)"),
          IDLE_ENDPOINT);

  /** JSON keys, in {@link #toJson()} order. */
  public static final Set<String> KEYS = FIELDS.names();

  private String transport;
  private List<String> devices;
  private List<String> fallbackDevices;
  private IbverbsOptions ibverbs;
  private int workersPerContext;
  private int sliceSize;
  private int retryCount;
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

  /**
   * Copies options; nested options and the device list are copied too.
   *
   * @param other the options to copy
   */
  public EngineOptions(EngineOptions other) {
    FIELDS.copy(other, this);
  }

  /**
   * Reads options; missing keys keep their defaults.
   *
   * @param json the options
   * @return the options, validated
   * @throws VteException INVALID_CONFIGURATION naming unknown keys, a value of the wrong type or a
   *     bad value
   */
  public static EngineOptions fromJson(JsonObject json) {
    EngineOptions o = new EngineOptions();
    FIELDS.read(json, o, LABEL, "");
    return o.validate();
  }

  /**
   * @return the options as JSON, readable by {@link #fromJson}; unset (null) fields are left out
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * Checks every field, nested options included.
   *
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public EngineOptions validate() {
    FIELDS.validate(this, LABEL, "");
    return this;
  }

  private static boolean validMetadataUri(String uri) {
    return "p2p".equals(uri)
        || (uri != null
            && (uri.startsWith("etcd://") || uri.startsWith("etcds://"))
            && uri.indexOf("://") + 3 < uri.length());
  }

  private static boolean nonBlank(List<String> names) {
    return names != null && !names.contains(null) && names.stream().noneMatch(String::isBlank);
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isZero() && !d.isNegative();
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

  /**
   * @return {@code soft} or {@code ibverbs}
   */
  public String getTransport() {
    return transport;
  }

  /**
   * @param transport {@code soft} or {@code ibverbs} @return this
   */
  public EngineOptions setTransport(String transport) {
    this.transport = transport;
    return this;
  }

  /**
   * @return local device names (soft verbs: device specs {@code name[@host[:port]]}); empty (the
   *     default) means soft devices chosen from the host's interfaces by {@link DefaultSoftDevices}
   */
  public List<String> getDevices() {
    return devices;
  }

  /**
   * @param devices local device names or specs; empty for {@link DefaultSoftDevices} @return this
   */
  public EngineOptions setDevices(List<String> devices) {
    this.devices = devices == null ? null : new ArrayList<>(devices);
    return this;
  }

  /**
   * @return soft-verbs device specs ({@code name[@host[:port]]}) an ibverbs engine opens beside its
   *     {@link #getDevices() devices}, as a fallback: their rails to a peer carry slices only while
   *     no ibverbs rail to that peer is usable (every RDMA port down or held down), and the slices
   *     move back once one is; empty (the default) opens none
   */
  public List<String> getFallbackDevices() {
    return fallbackDevices;
  }

  /**
   * @param fallbackDevices soft-verbs device specs {@code name[@host[:port]]} opened beside the
   *     ibverbs devices; non-empty only with transport {@code ibverbs} @return this
   */
  public EngineOptions setFallbackDevices(List<String> fallbackDevices) {
    this.fallbackDevices = fallbackDevices == null ? null : new ArrayList<>(fallbackDevices);
    return this;
  }

  /**
   * @return how the ibverbs devices choose their GID and mark their traffic (GRH traffic class,
   *     service level); null (the default): the provider's defaults
   */
  public IbverbsOptions getIbverbs() {
    return ibverbs;
  }

  /**
   * @param ibverbs the ibverbs devices' GID choice, traffic class and service level; null for the
   *     provider's defaults @return this
   */
  public EngineOptions setIbverbs(IbverbsOptions ibverbs) {
    this.ibverbs = ibverbs;
    return this;
  }

  /**
   * @return owner verticles per local device
   */
  public int getWorkersPerContext() {
    return workersPerContext;
  }

  /**
   * @param workersPerContext owner verticles per local device, 1..64 @return this
   */
  public EngineOptions setWorkersPerContext(int workersPerContext) {
    this.workersPerContext = workersPerContext;
    return this;
  }

  /**
   * @return the slice size in bytes
   */
  public int getSliceSize() {
    return sliceSize;
  }

  /**
   * @param sliceSize bytes per slice @return this
   */
  public EngineOptions setSliceSize(int sliceSize) {
    this.sliceSize = sliceSize;
    return this;
  }

  /**
   * @return how many times a failed slice is retried on another rail
   */
  public int getRetryCount() {
    return retryCount;
  }

  /**
   * @param retryCount retries per slice @return this
   */
  public EngineOptions setRetryCount(int retryCount) {
    this.retryCount = retryCount;
    return this;
  }

  /**
   * @return deadline of handshake calls
   */
  public Duration getHandshakeDeadline() {
    return handshakeDeadline;
  }

  /**
   * @param handshakeDeadline deadline of handshake calls @return this
   */
  public EngineOptions setHandshakeDeadline(Duration handshakeDeadline) {
    this.handshakeDeadline = handshakeDeadline;
    return this;
  }

  /**
   * @return connect requests one owner has in flight at most; its further active handshakes wait
   *     for a free slot, their deadline starting when they are sent
   */
  public int getMaxHandshakesInFlight() {
    return maxHandshakesInFlight;
  }

  /**
   * Bounds the active handshakes of each owner, so that a node opening many peers at once (a
   * restart, a new cluster) does not send more connect requests than the peers answer within the
   * handshake deadline.
   *
   * @param maxHandshakesInFlight connect requests in flight per owner, 1..4096 @return this
   */
  public EngineOptions setMaxHandshakesInFlight(int maxHandshakesInFlight) {
    this.maxHandshakesInFlight = maxHandshakesInFlight;
    return this;
  }

  /**
   * @return how long an owner keeps polling its completion queue and its queue of slices after it
   *     last found work, before it sleeps until a completion notification or a submission wakes it
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
   * @return how long each soft-verbs NIC thread keeps polling its sockets after it served a peer's
   *     request of at most 16 KiB (the target side of a WRITE or READ) before it sleeps in select
   *     (ibverbs devices ignore it)
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

  /**
   * @return entries per completion queue
   */
  public int getCqSize() {
    return cqSize;
  }

  /**
   * @param cqSize entries per completion queue @return this
   */
  public EngineOptions setCqSize(int cqSize) {
    this.cqSize = cqSize;
    return this;
  }

  /**
   * @return endpoints kept per owner before idle ones are evicted
   */
  public int getEndpointCacheSize() {
    return endpointCacheSize;
  }

  /**
   * @param endpointCacheSize endpoints per owner @return this
   */
  public EngineOptions setEndpointCacheSize(int endpointCacheSize) {
    this.endpointCacheSize = endpointCacheSize;
    return this;
  }

  /**
   * @return how long a soft-verbs QP connection may carry nothing before it is closed (its socket
   *     and buffers freed; the next transfer reopens it), zero for never
   */
  public Duration getIdleConnection() {
    return idleConnection;
  }

  /**
   * @param idleConnection idle time after which a soft-verbs QP connection closes, zero for never
   * @return this
   */
  public EngineOptions setIdleConnection(Duration idleConnection) {
    this.idleConnection = idleConnection;
    return this;
  }

  /**
   * @return how long an endpoint may go unused before its owner retires it (QPs destroyed, store
   *     slot freed; the next transfer to that peer device connects again), zero for never
   */
  public Duration getIdleEndpoint() {
    return idleEndpoint;
  }

  /**
   * @param idleEndpoint unused time after which an endpoint is retired, zero for never
   * @return this
   */
  public EngineOptions setIdleEndpoint(Duration idleEndpoint) {
    this.idleEndpoint = idleEndpoint;
    return this;
  }

  /**
   * @return signaled work requests outstanding per QP at most
   */
  public int getMaxOutstandingPerQp() {
    return maxOutstandingPerQp;
  }

  /**
   * @param maxOutstandingPerQp outstanding work requests per QP @return this
   */
  public EngineOptions setMaxOutstandingPerQp(int maxOutstandingPerQp) {
    this.maxOutstandingPerQp = maxOutstandingPerQp;
    return this;
  }

  /**
   * @return host the handshake service binds to and advertises; null (the default): the first soft
   *     device's address
   */
  public String getRpcHost() {
    return rpcHost;
  }

  /**
   * @param rpcHost handshake host; null for the first soft device's address @return this
   */
  public EngineOptions setRpcHost(String rpcHost) {
    this.rpcHost = rpcHost;
    return this;
  }

  /**
   * @return handshake port, 0 for any free port
   */
  public int getRpcPort() {
    return rpcPort;
  }

  /**
   * @param rpcPort handshake port, 0 for any free port @return this
   */
  public EngineOptions setRpcPort(int rpcPort) {
    this.rpcPort = rpcPort;
    return this;
  }

  /**
   * @return {@code p2p} or {@code etcd://...}
   */
  public String getMetadataUri() {
    return metadataUri;
  }

  /**
   * @param metadataUri {@code p2p} or {@code etcd://...} @return this
   */
  public EngineOptions setMetadataUri(String metadataUri) {
    this.metadataUri = metadataUri;
    return this;
  }

  /**
   * @return the metadata store's options; null (the default) for {@link MetadataOptions}' defaults
   */
  public MetadataOptions getMetadata() {
    return metadata;
  }

  /**
   * @param metadata the metadata store's options; null for the defaults @return this
   */
  public EngineOptions setMetadata(MetadataOptions metadata) {
    this.metadata = metadata;
    return this;
  }

  /**
   * @return the logical name this node publishes its segment under; null means its server name
   *     (host:port)
   */
  public String getSegmentName() {
    return segmentName;
  }

  /**
   * @param segmentName the logical segment name peers open this node by, independent of its
   *     address; null for the server name (host:port)
   * @return this
   */
  public EngineOptions setSegmentName(String segmentName) {
    this.segmentName = segmentName;
    return this;
  }

  /**
   * @return handshake authentication options; null for none
   */
  public AuthOptions getAuth() {
    return auth;
  }

  /**
   * @param auth handshake authentication options @return this
   */
  public EngineOptions setAuth(AuthOptions auth) {
    this.auth = auth;
    return this;
  }

  /**
   * @return handshake TLS options; null for plain text
   */
  public TlsOptions getTls() {
    return tls;
  }

  /**
   * @param tls handshake TLS options @return this
   */
  public EngineOptions setTls(TlsOptions tls) {
    this.tls = tls;
    return this;
  }

  /**
   * @return how long a rail with repeated errors is paused before it is probed again
   */
  public Duration getRailHoldDown() {
    return railHoldDown;
  }

  /**
   * @param railHoldDown pause of a failing rail @return this
   */
  public EngineOptions setRailHoldDown(Duration railHoldDown) {
    this.railHoldDown = railHoldDown;
    return this;
  }

  /**
   * @return QP transport timeout per attempt
   */
  public Duration getQpTimeout() {
    return qpTimeout;
  }

  /**
   * @param qpTimeout QP transport timeout @return this
   */
  public EngineOptions setQpTimeout(Duration qpTimeout) {
    this.qpTimeout = qpTimeout;
    return this;
  }

  /**
   * @return QP transport retries, 0..7
   */
  public int getQpRetryCount() {
    return qpRetryCount;
  }

  /**
   * @param qpRetryCount QP transport retries, 0..7 @return this
   */
  public EngineOptions setQpRetryCount(int qpRetryCount) {
    this.qpRetryCount = qpRetryCount;
    return this;
  }
}
