package io.vte.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Options of a {@link TransferEngine}, set fluently from code or read from JSON ({@link #fromJson});
 * {@link #validate()} reports the first bad field by name. Durations are milliseconds in JSON.
 */
public final class EngineOptions {

  /** JSON keys, in {@link #toJson()} order. */
  public static final Set<String> KEYS = Set.of("transport", "devices", "workersPerContext", "sliceSize",
      "retryCount", "handshakeDeadlineMs", "cqSize", "endpointCacheSize", "maxOutstandingPerQp", "rpcHost",
      "rpcPort", "metadataUri", "metadata", "segmentName", "auth", "tls", "railHoldDownMs", "qpTimeoutMs",
      "qpRetryCount");

  /** String fields of the {@code metadata} object (passed through to the metadata store's options). */
  public static final Set<String> METADATA_STRING_KEYS = Set.of("clusterPrefix", "etcdUser", "etcdPassword",
      "tlsTrustPemPath", "tlsCertPemPath", "tlsKeyPemPath");
  /** Millisecond fields of the {@code metadata} object. */
  public static final Set<String> METADATA_MILLIS_KEYS = Set.of("leaseTtlMs", "callDeadlineMs",
      "healthCheckIntervalMs", "startDeadlineMs");

  /** Longest logical segment name. */
  public static final int MAX_SEGMENT_NAME_LENGTH = 256;

  private String transport = "soft";
  private List<String> devices = new ArrayList<>();
  private int workersPerContext = 2;
  private int sliceSize = 64 * 1024;
  private int retryCount = 4;
  private Duration handshakeDeadline = Duration.ofSeconds(5);
  private int cqSize = 4096;
  private int endpointCacheSize = 256;
  private int maxOutstandingPerQp = 32;
  private String rpcHost;
  private int rpcPort = 0;
  private String metadataUri = "p2p";
  private JsonObject metadata;
  private String segmentName;
  private JsonObject auth;
  private JsonObject tls;
  private Duration railHoldDown = Duration.ofSeconds(2);
  private Duration qpTimeout = Duration.ofSeconds(1);
  private int qpRetryCount = 7;

  /** Creates options with the documented defaults. */
  public EngineOptions() {}

  /**
   * Reads options; missing keys keep their defaults.
   *
   * @param json the options
   * @return the options, validated
   * @throws VteException INVALID_CONFIGURATION naming unknown keys, a value of the wrong type or a bad value
   */
  public static EngineOptions fromJson(JsonObject json) {
    Set<String> unknown = new TreeSet<>(json.fieldNames());
    unknown.removeAll(KEYS);
    if (!unknown.isEmpty()) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "unknown engine option(s) " + unknown
          + "; known: " + new TreeSet<>(KEYS));
    }
    EngineOptions o = new EngineOptions();
    String field = null;
    try {
      for (String key : json.fieldNames()) {
        field = key;
        o.read(key, json);
      }
    } catch (ClassCastException e) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION,
          "engine option '" + field + "' has the wrong type: " + json.getValue(field));
    }
    o.validate();
    return o;
  }

  private void read(String key, JsonObject json) {
    switch (key) {
      case "transport": transport = json.getString(key); break;
      case "devices": devices = readStrings(json.getJsonArray(key)); break;
      case "workersPerContext": workersPerContext = json.getInteger(key); break;
      case "sliceSize": sliceSize = json.getInteger(key); break;
      case "retryCount": retryCount = json.getInteger(key); break;
      case "handshakeDeadlineMs": handshakeDeadline = Duration.ofMillis(json.getLong(key)); break;
      case "cqSize": cqSize = json.getInteger(key); break;
      case "endpointCacheSize": endpointCacheSize = json.getInteger(key); break;
      case "maxOutstandingPerQp": maxOutstandingPerQp = json.getInteger(key); break;
      case "rpcHost": rpcHost = json.getString(key); break;
      case "rpcPort": rpcPort = json.getInteger(key); break;
      case "metadataUri": metadataUri = json.getString(key); break;
      case "metadata": metadata = json.getJsonObject(key); break;
      case "segmentName": segmentName = json.getString(key); break;
      case "auth": auth = json.getJsonObject(key); break;
      case "tls": tls = json.getJsonObject(key); break;
      case "railHoldDownMs": railHoldDown = Duration.ofMillis(json.getLong(key)); break;
      case "qpTimeoutMs": qpTimeout = Duration.ofMillis(json.getLong(key)); break;
      case "qpRetryCount": qpRetryCount = json.getInteger(key); break;
      default: throw new IllegalStateException("KEYS and read() disagree on " + key);
    }
  }

  private static List<String> readStrings(JsonArray array) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      out.add(array.getString(i));
    }
    return out;
  }

  /** @return the options as JSON, readable by {@link #fromJson} */
  public JsonObject toJson() {
    JsonObject json = new JsonObject()
        .put("transport", transport)
        .put("devices", new JsonArray(new ArrayList<Object>(devices)))
        .put("workersPerContext", workersPerContext)
        .put("sliceSize", sliceSize)
        .put("retryCount", retryCount)
        .put("handshakeDeadlineMs", handshakeDeadline.toMillis())
        .put("cqSize", cqSize)
        .put("endpointCacheSize", endpointCacheSize)
        .put("maxOutstandingPerQp", maxOutstandingPerQp)
        .put("rpcPort", rpcPort)
        .put("metadataUri", metadataUri)
        .put("railHoldDownMs", railHoldDown.toMillis())
        .put("qpTimeoutMs", qpTimeout.toMillis())
        .put("qpRetryCount", qpRetryCount);
    if (metadata != null) {
      json.put("metadata", metadata.copy());
    }
    if (rpcHost != null) {
      json.put("rpcHost", rpcHost);
    }
    if (segmentName != null) {
      json.put("segmentName", segmentName);
    }
    if (auth != null) {
      json.put("auth", auth.copy());
    }
    if (tls != null) {
      json.put("tls", tls.copy());
    }
    return json;
  }

  /**
   * Checks every field.
   *
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public EngineOptions validate() {
    check("transport", "soft".equals(transport) || "ibverbs".equals(transport), transport, "soft or ibverbs");
    check("devices", devices != null && !devices.contains(null) && devices.stream().noneMatch(String::isBlank)
        && (!devices.isEmpty() || !"ibverbs".equals(transport)), devices,
        "non-blank devices (empty: soft devices chosen from the host's interfaces; ibverbs needs device names)");
    check("workersPerContext", workersPerContext >= 1 && workersPerContext <= 64, workersPerContext, "1..64");
    check("sliceSize", sliceSize >= 4096 && sliceSize <= (1 << 30), sliceSize, "4096..1073741824 bytes");
    check("retryCount", retryCount >= 0 && retryCount <= 64, retryCount, "0..64");
    check("handshakeDeadlineMs", positive(handshakeDeadline), handshakeDeadline, "positive");
    check("cqSize", cqSize >= 1 && cqSize <= (1 << 22), cqSize, "1..4194304");
    check("endpointCacheSize", endpointCacheSize >= 1, endpointCacheSize, ">= 1");
    check("maxOutstandingPerQp", maxOutstandingPerQp >= 1 && maxOutstandingPerQp <= cqSize,
        maxOutstandingPerQp, "1..cqSize (" + cqSize + ")");
    check("rpcHost", rpcHost == null || !rpcHost.isBlank(), rpcHost,
        "a host name or address (unset: the address of the first soft device)");
    check("rpcPort", rpcPort >= 0 && rpcPort <= 65535, rpcPort, "0..65535 (0 = any free port)");
    check("metadataUri", "p2p".equals(metadataUri) || (metadataUri != null
        && (metadataUri.startsWith("etcd://") || metadataUri.startsWith("etcds://"))
        && metadataUri.indexOf("://") + 3 < metadataUri.length()),
        metadataUri, "p2p, etcd://host:port[,host:port...] or etcds://host:port[,host:port...]");
    validateMetadata();
    check("segmentName", segmentName == null || (!segmentName.isBlank()
        && segmentName.length() <= MAX_SEGMENT_NAME_LENGTH
        && segmentName.chars().noneMatch(c -> c <= ' ' || c == 0x7f)), segmentName,
        "1.." + MAX_SEGMENT_NAME_LENGTH + " printable characters without spaces (unset: the server name)");
    check("railHoldDownMs", railHoldDown != null && !railHoldDown.isNegative(), railHoldDown, ">= 0");
    check("qpTimeoutMs", positive(qpTimeout), qpTimeout, "positive");
    check("qpRetryCount", qpRetryCount >= 0 && qpRetryCount <= 7, qpRetryCount, "0..7");
    return this;
  }

  /** Checks the {@code metadata} object's keys and value types; the store checks the values' ranges. */
  private void validateMetadata() {
    if (metadata == null) {
      return;
    }
    for (String key : new TreeSet<>(metadata.fieldNames())) {
      Object value = metadata.getValue(key);
      boolean ok;
      String expected;
      if (METADATA_STRING_KEYS.contains(key)) {
        ok = value instanceof String;
        expected = "a string";
      } else if (METADATA_MILLIS_KEYS.contains(key)) {
        ok = value instanceof Number n && n.doubleValue() == n.longValue() && n.longValue() > 0;
        expected = "a positive whole number of milliseconds";
      } else {
        ok = false;
        TreeSet<String> known = new TreeSet<>(METADATA_STRING_KEYS);
        known.addAll(METADATA_MILLIS_KEYS);
        expected = "one of the known keys " + known + " (unknown key)";
      }
      check("metadata." + key, ok, value, expected);
    }
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isZero() && !d.isNegative();
  }

  private static void check(String field, boolean ok, Object value, String expected) {
    if (!ok) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION,
          "engine option '" + field + "' = " + value + " is invalid: expected " + expected);
    }
  }

  /**
   * Fills in what is left to the host: empty {@code devices} (soft) become {@link DefaultSoftDevices#forThisHost()},
   * an unset {@code rpcHost} the address of the first soft device (127.0.0.1 for ibverbs). The engine calls
   * this when it opens; these options are not changed.
   *
   * @return a validated copy with devices and rpcHost set
   * @throws VteException INVALID_CONFIGURATION naming the first bad field
   */
  public EngineOptions withHostDefaults() {
    EngineOptions o = fromJson(validate().toJson());
    boolean soft = "soft".equals(transport);
    if (soft && o.devices.isEmpty()) {
      o.devices = new ArrayList<>(DefaultSoftDevices.forThisHost().specs());
    }
    if (o.rpcHost == null) {
      o.rpcHost = soft ? SoftDeviceSpec.parse(o.devices.get(0)).host() : SoftDeviceSpec.DEFAULT_HOST;
    }
    return o;
  }

  /** @return {@code soft} or {@code ibverbs} */
  public String getTransport() {
    return transport;
  }

  /** @param transport {@code soft} or {@code ibverbs} @return this */
  public EngineOptions setTransport(String transport) {
    this.transport = transport;
    return this;
  }

  /**
   * @return local device names (soft verbs: device specs {@code name[@host[:port]]}); empty (the default) means
   *     soft devices chosen from the host's interfaces by {@link DefaultSoftDevices}
   */
  public List<String> getDevices() {
    return devices;
  }

  /** @param devices local device names or specs; empty for {@link DefaultSoftDevices} @return this */
  public EngineOptions setDevices(List<String> devices) {
    this.devices = devices == null ? null : new ArrayList<>(devices);
    return this;
  }

  /** @return owner verticles per local device */
  public int getWorkersPerContext() {
    return workersPerContext;
  }

  /** @param workersPerContext owner verticles per local device, 1..64 @return this */
  public EngineOptions setWorkersPerContext(int workersPerContext) {
    this.workersPerContext = workersPerContext;
    return this;
  }

  /** @return the slice size in bytes */
  public int getSliceSize() {
    return sliceSize;
  }

  /** @param sliceSize bytes per slice @return this */
  public EngineOptions setSliceSize(int sliceSize) {
    this.sliceSize = sliceSize;
    return this;
  }

  /** @return how many times a failed slice is retried on another rail */
  public int getRetryCount() {
    return retryCount;
  }

  /** @param retryCount retries per slice @return this */
  public EngineOptions setRetryCount(int retryCount) {
    this.retryCount = retryCount;
    return this;
  }

  /** @return deadline of handshake calls */
  public Duration getHandshakeDeadline() {
    return handshakeDeadline;
  }

  /** @param handshakeDeadline deadline of handshake calls @return this */
  public EngineOptions setHandshakeDeadline(Duration handshakeDeadline) {
    this.handshakeDeadline = handshakeDeadline;
    return this;
  }

  /** @return entries per completion queue */
  public int getCqSize() {
    return cqSize;
  }

  /** @param cqSize entries per completion queue @return this */
  public EngineOptions setCqSize(int cqSize) {
    this.cqSize = cqSize;
    return this;
  }

  /** @return endpoints kept per owner before idle ones are evicted */
  public int getEndpointCacheSize() {
    return endpointCacheSize;
  }

  /** @param endpointCacheSize endpoints per owner @return this */
  public EngineOptions setEndpointCacheSize(int endpointCacheSize) {
    this.endpointCacheSize = endpointCacheSize;
    return this;
  }

  /** @return signaled work requests outstanding per QP at most */
  public int getMaxOutstandingPerQp() {
    return maxOutstandingPerQp;
  }

  /** @param maxOutstandingPerQp outstanding work requests per QP @return this */
  public EngineOptions setMaxOutstandingPerQp(int maxOutstandingPerQp) {
    this.maxOutstandingPerQp = maxOutstandingPerQp;
    return this;
  }

  /** @return host the handshake service binds to and advertises; null (the default): the first soft device's address */
  public String getRpcHost() {
    return rpcHost;
  }

  /** @param rpcHost handshake host; null for the first soft device's address @return this */
  public EngineOptions setRpcHost(String rpcHost) {
    this.rpcHost = rpcHost;
    return this;
  }

  /** @return handshake port, 0 for any free port */
  public int getRpcPort() {
    return rpcPort;
  }

  /** @param rpcPort handshake port, 0 for any free port @return this */
  public EngineOptions setRpcPort(int rpcPort) {
    this.rpcPort = rpcPort;
    return this;
  }

  /** @return {@code p2p} or {@code etcd://...} */
  public String getMetadataUri() {
    return metadataUri;
  }

  /** @param metadataUri {@code p2p} or {@code etcd://...} @return this */
  public EngineOptions setMetadataUri(String metadataUri) {
    this.metadataUri = metadataUri;
    return this;
  }

  /**
   * @return the metadata store's options as JSON (cluster prefix, lease TTL, call deadline, health-check
   *     interval, etcd credentials, TLS PEM paths), passed through; null for the defaults
   */
  public JsonObject getMetadata() {
    return metadata;
  }

  /**
   * @param metadata the metadata store's options: {@code clusterPrefix}, {@code leaseTtlMs}, {@code callDeadlineMs},
   *     {@code healthCheckIntervalMs}, {@code startDeadlineMs}, {@code etcdUser}, {@code etcdPassword}, {@code tlsTrustPemPath},
   *     {@code tlsCertPemPath}, {@code tlsKeyPemPath}; null for the defaults
   * @return this
   */
  public EngineOptions setMetadata(JsonObject metadata) {
    this.metadata = metadata;
    return this;
  }

  /** @return the logical name this node publishes its segment under; null means its server name (host:port) */
  public String getSegmentName() {
    return segmentName;
  }

  /**
   * @param segmentName the logical segment name peers open this node by, independent of its address;
   *     null for the server name (host:port)
   * @return this
   */
  public EngineOptions setSegmentName(String segmentName) {
    this.segmentName = segmentName;
    return this;
  }

  /** @return handshake authentication options, passed through; null for none */
  public JsonObject getAuth() {
    return auth;
  }

  /** @param auth handshake authentication options @return this */
  public EngineOptions setAuth(JsonObject auth) {
    this.auth = auth;
    return this;
  }

  /** @return handshake TLS options, passed through; null for plain text */
  public JsonObject getTls() {
    return tls;
  }

  /** @param tls handshake TLS options @return this */
  public EngineOptions setTls(JsonObject tls) {
    this.tls = tls;
    return this;
  }

  /** @return how long a rail with repeated errors is paused before it is probed again */
  public Duration getRailHoldDown() {
    return railHoldDown;
  }

  /** @param railHoldDown pause of a failing rail @return this */
  public EngineOptions setRailHoldDown(Duration railHoldDown) {
    this.railHoldDown = railHoldDown;
    return this;
  }

  /** @return QP transport timeout per attempt */
  public Duration getQpTimeout() {
    return qpTimeout;
  }

  /** @param qpTimeout QP transport timeout @return this */
  public EngineOptions setQpTimeout(Duration qpTimeout) {
    this.qpTimeout = qpTimeout;
    return this;
  }

  /** @return QP transport retries, 0..7 */
  public int getQpRetryCount() {
    return qpRetryCount;
  }

  /** @param qpRetryCount QP transport retries, 0..7 @return this */
  public EngineOptions setQpRetryCount(int qpRetryCount) {
    this.qpRetryCount = qpRetryCount;
    return this;
  }
}
