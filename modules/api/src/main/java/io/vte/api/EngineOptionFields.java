package io.vte.api;

import static io.vte.api.OptionFields.field;

import io.vte.api.OptionFields.Field;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The fields of {@link EngineOptions}: each one's JSON name, kind, default, range, getter and
 * setter, as typed constants (code that needs a default or a range names the constant, never a
 * string key) and as the table {@link #FIELDS} that reads, writes, copies and validates the
 * options: {@code EngineOptionFields.CQ_SIZE.require(n, "cqSize")}.
 */
public final class EngineOptionFields {

  private EngineOptionFields() {}

  /** The field {@code workersPerContext}. */
  public static final Field<EngineOptions, Integer> WORKERS_PER_CONTEXT =
      field(
              "workersPerContext",
              OptionKind.INT,
              2,
              EngineOptions::getWorkersPerContext,
              EngineOptions::setWorkersPerContext)
          .check(n -> n >= 1 && n <= 64, "1..64");

  /** The field {@code handshakeDeadlineMs}. */
  public static final Field<EngineOptions, Duration> HANDSHAKE_DEADLINE =
      field(
              "handshakeDeadlineMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(5),
              EngineOptions::getHandshakeDeadline,
              EngineOptions::setHandshakeDeadline)
          .check(EngineOptionFields::positive, "positive");

  /** The field {@code maxHandshakesInFlight}. */
  public static final Field<EngineOptions, Integer> MAX_HANDSHAKES_IN_FLIGHT =
      field(
              "maxHandshakesInFlight",
              OptionKind.INT,
              16,
              EngineOptions::getMaxHandshakesInFlight,
              EngineOptions::setMaxHandshakesInFlight)
          .check(n -> n >= 1 && n <= 4096, "1..4096");

  /** The field {@code cqSize}. */
  public static final Field<EngineOptions, Integer> CQ_SIZE =
      field("cqSize", OptionKind.INT, 4096, EngineOptions::getCqSize, EngineOptions::setCqSize)
          .check(n -> n >= 1 && n <= (1 << 22), "1..4194304");

  /** The field {@code endpointCacheSize}. */
  public static final Field<EngineOptions, Integer> ENDPOINT_CACHE_SIZE =
      field(
              "endpointCacheSize",
              OptionKind.INT,
              256,
              EngineOptions::getEndpointCacheSize,
              EngineOptions::setEndpointCacheSize)
          .check(n -> n >= 1, ">= 1");

  /** The field {@code busyPollMicros}. */
  public static final Field<EngineOptions, Duration> BUSY_POLL =
      field(
              "busyPollMicros",
              OptionKind.MICROS,
              Duration.of(100, ChronoUnit.MICROS),
              EngineOptions::getBusyPoll,
              EngineOptions::setBusyPoll)
          .check(d -> upTo(d, Duration.ofSeconds(1)), "0..1000000");

  /** The field {@code qpRetryCount}. */
  public static final Field<EngineOptions, Integer> QP_RETRY_COUNT =
      field(
              "qpRetryCount",
              OptionKind.INT,
              7,
              EngineOptions::getQpRetryCount,
              EngineOptions::setQpRetryCount)
          .check(n -> n >= 0 && n <= 7, "0..7");

  /** The field {@code idleEndpointMs}. */
  public static final Field<EngineOptions, Duration> IDLE_ENDPOINT =
      field(
              "idleEndpointMs",
              OptionKind.MILLIS,
              Duration.ofMinutes(5),
              EngineOptions::getIdleEndpoint,
              EngineOptions::setIdleEndpoint)
          .check(d -> upTo(d, Duration.ofDays(1)), "0..86400000 (0 = never)");

  /** The field {@code transport}. */
  public static final Field<EngineOptions, String> TRANSPORT =
      field(
              "transport",
              OptionKind.STRING,
              "soft",
              EngineOptions::getTransport,
              EngineOptions::setTransport)
          .check(t -> "soft".equals(t) || "ibverbs".equals(t), "soft or ibverbs");

  /** The field {@code devices}. */
  public static final Field<EngineOptions, List<String>> DEVICES =
      field(
              "devices",
              OptionKind.STRING_LIST,
              List.of(),
              EngineOptions::getDevices,
              EngineOptions::setDevices)
          .check(
              (o, d) -> nonBlank(d) && (!d.isEmpty() || !"ibverbs".equals(o.getTransport())),
              o ->
                  "non-blank devices (empty: soft devices chosen from the host's interfaces; ibverbs needs device names)");

  /** The field {@code fallbackDevices}. */
  public static final Field<EngineOptions, List<String>> FALLBACK_DEVICES =
      field(
              "fallbackDevices",
              OptionKind.STRING_LIST,
              List.of(),
              EngineOptions::getFallbackDevices,
              EngineOptions::setFallbackDevices)
          .check(
              (o, d) -> nonBlank(d) && (d.isEmpty() || "ibverbs".equals(o.getTransport())),
              o ->
                  "non-blank soft device specs name[@host[:port]], only with transport ibverbs (empty: none)");

  /** The field {@code ibverbs}. */
  public static final Field<EngineOptions, IbverbsOptions> IBVERBS =
      field(
          "ibverbs",
          OptionKind.object(IbverbsOptions.FIELDS, IbverbsOptions::new),
          null,
          EngineOptions::getIbverbs,
          EngineOptions::setIbverbs);

  /** The field {@code sliceSize}. */
  public static final Field<EngineOptions, Integer> SLICE_SIZE =
      field(
              "sliceSize",
              OptionKind.BYTES,
              64 * 1024,
              EngineOptions::getSliceSize,
              EngineOptions::setSliceSize)
          .check(n -> n >= 4096 && n <= (1 << 30), "4096..1073741824 bytes");

  /** The field {@code retryCount}. */
  public static final Field<EngineOptions, Integer> RETRY_COUNT =
      field(
              "retryCount",
              OptionKind.INT,
              4,
              EngineOptions::getRetryCount,
              EngineOptions::setRetryCount)
          .check(n -> n >= 0 && n <= 64, "0..64");

  /** The field {@code integrity}. */
  public static final Field<EngineOptions, String> INTEGRITY =
      field(
              "integrity",
              OptionKind.STRING,
              Integrity.NONE.jsonName(),
              EngineOptions::getIntegrity,
              EngineOptions::setIntegrity)
          .check(Integrity::isName, "none or crc32c");

  /** The field {@code maxOutstandingPerQp}. */
  public static final Field<EngineOptions, Integer> MAX_OUTSTANDING_PER_QP =
      field(
              "maxOutstandingPerQp",
              OptionKind.INT,
              32,
              EngineOptions::getMaxOutstandingPerQp,
              EngineOptions::setMaxOutstandingPerQp)
          .check((o, n) -> n >= 1 && n <= o.getCqSize(), o -> "1..cqSize (" + o.getCqSize() + ")");

  /** The field {@code nicBusyPollMicros}. */
  public static final Field<EngineOptions, Duration> NIC_BUSY_POLL =
      field(
              "nicBusyPollMicros",
              OptionKind.MICROS,
              Duration.of(50, ChronoUnit.MICROS),
              EngineOptions::getNicBusyPoll,
              EngineOptions::setNicBusyPoll)
          .check(d -> upTo(d, Duration.ofSeconds(1)), "0..1000000");

  /** The field {@code rpcHost}. */
  public static final Field<EngineOptions, String> RPC_HOST =
      field(
              "rpcHost",
              OptionKind.STRING,
              null,
              EngineOptions::getRpcHost,
              EngineOptions::setRpcHost)
          .check(
              h -> h == null || !h.isBlank(),
              "a host name or address (unset: the address of the first soft device)");

  /** The field {@code rpcPort}. */
  public static final Field<EngineOptions, Integer> RPC_PORT =
      field("rpcPort", OptionKind.INT, 0, EngineOptions::getRpcPort, EngineOptions::setRpcPort)
          .check(p -> p >= 0 && p <= 65535, "0..65535 (0 = any free port)");

  /** The field {@code metadataUri}. */
  public static final Field<EngineOptions, String> METADATA_URI =
      field(
              "metadataUri",
              OptionKind.STRING,
              "p2p",
              EngineOptions::getMetadataUri,
              EngineOptions::setMetadataUri)
          .check(
              EngineOptionFields::validMetadataUri,
              "p2p, etcd://host:port[,host:port...] or etcds://host:port[,host:port...]");

  /** The field {@code metadata}. */
  public static final Field<EngineOptions, MetadataOptions> METADATA =
      field(
          "metadata",
          OptionKind.object(MetadataOptions.FIELDS, MetadataOptions::new),
          null,
          EngineOptions::getMetadata,
          EngineOptions::setMetadata);

  /** The field {@code segmentName}. */
  public static final Field<EngineOptions, String> SEGMENT_NAME =
      field(
              "segmentName",
              OptionKind.STRING,
              null,
              EngineOptions::getSegmentName,
              EngineOptions::setSegmentName)
          .check(
              n ->
                  n == null
                      || (!n.isBlank()
                          && n.length() <= EngineOptions.MAX_SEGMENT_NAME_LENGTH
                          && n.chars().noneMatch(c -> c <= ' ' || c == 0x7f)),
              "1.."
                  + EngineOptions.MAX_SEGMENT_NAME_LENGTH
                  + " printable characters without spaces (unset: the server name)");

  /** The field {@code auth}. */
  public static final Field<EngineOptions, AuthOptions> AUTH =
      field(
          "auth",
          OptionKind.object(AuthOptions.FIELDS, AuthOptions::new),
          null,
          EngineOptions::getAuth,
          EngineOptions::setAuth);

  /** The field {@code tls}. */
  public static final Field<EngineOptions, TlsOptions> TLS =
      field(
          "tls",
          OptionKind.object(TlsOptions.FIELDS, TlsOptions::new),
          null,
          EngineOptions::getTls,
          EngineOptions::setTls);

  /** The field {@code railHoldDownMs}. */
  public static final Field<EngineOptions, Duration> RAIL_HOLD_DOWN =
      field(
              "railHoldDownMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(2),
              EngineOptions::getRailHoldDown,
              EngineOptions::setRailHoldDown)
          .check(d -> d != null && !d.isNegative(), ">= 0");

  /** The field {@code qpTimeoutMs}. */
  public static final Field<EngineOptions, Duration> QP_TIMEOUT =
      field(
              "qpTimeoutMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(1),
              EngineOptions::getQpTimeout,
              EngineOptions::setQpTimeout)
          .check(EngineOptionFields::positive, "positive");

  /** The field {@code idleConnectionMs}. */
  public static final Field<EngineOptions, Duration> IDLE_CONNECTION =
      field(
              "idleConnectionMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(60),
              EngineOptions::getIdleConnection,
              EngineOptions::setIdleConnection)
          .check(d -> upTo(d, Duration.ofDays(1)), "0..86400000 (0 = never)");

  /** The fields, in {@link EngineOptions#toJson()} order. */
  public static final OptionFields<EngineOptions> FIELDS =
      OptionFields.of(
          TRANSPORT,
          DEVICES,
          FALLBACK_DEVICES,
          IBVERBS,
          WORKERS_PER_CONTEXT,
          SLICE_SIZE,
          RETRY_COUNT,
          INTEGRITY,
          HANDSHAKE_DEADLINE,
          MAX_HANDSHAKES_IN_FLIGHT,
          CQ_SIZE,
          ENDPOINT_CACHE_SIZE,
          MAX_OUTSTANDING_PER_QP,
          BUSY_POLL,
          NIC_BUSY_POLL,
          RPC_HOST,
          RPC_PORT,
          METADATA_URI,
          METADATA,
          SEGMENT_NAME,
          AUTH,
          TLS,
          RAIL_HOLD_DOWN,
          QP_TIMEOUT,
          QP_RETRY_COUNT,
          IDLE_CONNECTION,
          IDLE_ENDPOINT);

  private static boolean validMetadataUri(String uri) {
    return "p2p".equals(uri)
        || (uri != null
            && (uri.startsWith("etcd://") || uri.startsWith("etcds://"))
            && uri.indexOf("://") + 3 < uri.length());
  }

  private static boolean nonBlank(List<String> names) {
    return names != null && !names.contains(null) && names.stream().noneMatch(String::isBlank);
  }

  private static boolean upTo(Duration d, Duration max) {
    return d != null && !d.isNegative() && d.compareTo(max) <= 0;
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isZero() && !d.isNegative();
  }
}
