package io.vte.mooncake;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Mooncake's keys in etcd, through etcd's v3 JSON gateway ({@code POST /v3/kv/range}, {@code
 * /v3/kv/put}): {@code mooncake/ram/<segment>} holds a segment descriptor, {@code
 * mooncake/rpc_meta/<server>} where that server's handshake listener is ({@code {ip_or_host_name,
 * rpc_port}}). Used to open segments of Mooncake nodes started with an etcd metadata server, and to
 * publish a {@link MooncakeTarget} for them.
 */
public final class MooncakeEtcd {

  /** The prefix of every Mooncake key (without {@code MC_METADATA_CLUSTER_ID}). */
  public static final String PREFIX = "mooncake/";

  private final HttpClient http;
  private final String endpoint;

  /**
   * @param endpoint etcd's client URL, e.g. {@code http://127.0.0.1:2379}
   */
  public MooncakeEtcd(Vertx vertx, String endpoint) {
    this.http = vertx.createHttpClient();
    this.endpoint =
        endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
  }

  /**
   * @return the descriptor under {@code mooncake/ram/<segment>}; SEGMENT_NOT_FOUND when absent
   */
  public Future<SegmentDescriptor> segment(String segment) {
    return get(PREFIX + "ram/" + segment).map(SegmentDescriptor::fromJson);
  }

  /**
   * @return where {@code server}'s handshake listener is, from {@code mooncake/rpc_meta/<server>}
   */
  Future<HostPort> rpcMeta(String server) {
    return get(PREFIX + "rpc_meta/" + server)
        .map(
            json -> {
              String host = json.getString("ip_or_host_name", "");
              Number port = json.getNumber("rpc_port");
              if (host.isEmpty()
                  || port == null
                  || port.intValue() < 1
                  || port.intValue() > 65535) {
                throw new VteException(
                    ErrorCode.PROTOCOL_ERROR,
                    "Mooncake rpc_meta of " + server + " is not usable: " + json);
              }
              return new HostPort(host, port.intValue());
            });
  }

  /**
   * Publishes {@code target} under the segment name {@code segment}: its descriptor (named {@code
   * segment}) and its rpc_meta. Mooncake initiators on the same etcd then open it by that name.
   */
  public Future<Void> publish(String segment, MooncakeTarget target) {
    HostPort at = HostPort.parse(target.serverName());
    SegmentDescriptor d = target.descriptor();
    SegmentDescriptor named =
        new SegmentDescriptor(segment, d.tcpDataPort(), d.protocolVersion(), d.buffers());
    return put(PREFIX + "ram/" + segment, named.toJson())
        .compose(
            v ->
                put(
                    PREFIX + "rpc_meta/" + segment,
                    new JsonObject().put("ip_or_host_name", at.host()).put("rpc_port", at.port())));
  }

  /** Closes the HTTP client. */
  public Future<Void> close() {
    return http.close();
  }

  private Future<JsonObject> get(String key) {
    return call("/v3/kv/range", new JsonObject().put("key", b64(key)))
        .map(
            reply -> {
              JsonArray kvs = reply.getJsonArray("kvs");
              if (kvs == null || kvs.isEmpty()) {
                throw new VteException(
                    ErrorCode.SEGMENT_NOT_FOUND, "no key " + key + " in etcd at " + endpoint);
              }
              String value =
                  new String(
                      Base64.getDecoder().decode(kvs.getJsonObject(0).getString("value", "")),
                      StandardCharsets.UTF_8);
              try {
                return new JsonObject(value);
              } catch (RuntimeException e) {
                throw new VteException(
                    ErrorCode.PROTOCOL_ERROR, "etcd key " + key + " is not a JSON object");
              }
            });
  }

  private Future<Void> put(String key, JsonObject value) {
    return call(
            "/v3/kv/put", new JsonObject().put("key", b64(key)).put("value", b64(value.encode())))
        .mapEmpty();
  }

  private Future<JsonObject> call(String path, JsonObject body) {
    RequestOptions request =
        new RequestOptions().setAbsoluteURI(endpoint + path).setMethod(HttpMethod.POST);
    return http.request(request)
        .compose(r -> r.send(body.toBuffer()))
        .compose(this::body)
        .recover(
            e ->
                e instanceof VteException
                    ? Future.failedFuture(e)
                    : Future.failedFuture(
                        new VteException(
                            ErrorCode.METADATA_UNAVAILABLE,
                            "etcd at " + endpoint + ": " + e.getMessage(),
                            e)));
  }

  private Future<JsonObject> body(HttpClientResponse response) {
    return response
        .body()
        .map(
            (Buffer b) -> {
              if (response.statusCode() != 200) {
                throw new VteException(
                    ErrorCode.METADATA_UNAVAILABLE,
                    "etcd at " + endpoint + " answered " + response.statusCode() + ": " + b);
              }
              return b.toJsonObject();
            });
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
