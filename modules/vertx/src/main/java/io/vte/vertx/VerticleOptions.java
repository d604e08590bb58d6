package io.vte.vertx;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.VteException;

/**
 * The {@link TransferEngineVerticle}'s own config keys, beside the engine options in the same JSON,
 * declared once in {@link #FIELDS}: {@code address}, {@code httpPort} and {@code httpHost}. Read
 * strictly: a value of the wrong type or out of range is refused by name.
 */
public final class VerticleOptions {

  private static final String LABEL = "verticle option";

  /**
   * The field {@code address}: the event-bus address prefix, {@value EngineBus#DEFAULT_ADDRESS}.
   */
  public static final Field<VerticleOptions, String> ADDRESS =
      field(
              "address",
              OptionKind.STRING,
              EngineBus.DEFAULT_ADDRESS,
              o -> o.address,
              (VerticleOptions o, String v) -> o.address = v)
          .check(a -> a != null && !a.isBlank(), "a non-blank string");

  /**
   * The field {@code httpPort}: where {@code /metrics} and {@code /health} are served; absent or
   * below 0: no HTTP server, 0: any free port.
   */
  public static final Field<VerticleOptions, Integer> HTTP_PORT =
      field(
              "httpPort",
              OptionKind.INT,
              null,
              o -> o.httpPort,
              (VerticleOptions o, Integer v) -> o.httpPort = v)
          .check(p -> p == null || p <= 65535, "at most 65535 (below 0: no HTTP server)");

  /** The field {@code httpHost}: the address the HTTP endpoint listens on, 127.0.0.1. */
  public static final Field<VerticleOptions, String> HTTP_HOST =
      field(
              "httpHost",
              OptionKind.STRING,
              SoftDeviceSpec.DEFAULT_HOST,
              o -> o.httpHost,
              (VerticleOptions o, String v) -> o.httpHost = v)
          .check(h -> h != null && !h.isBlank(), "a host name or address");

  /** The fields, in JSON order. */
  public static final OptionFields<VerticleOptions> FIELDS =
      OptionFields.of(ADDRESS, HTTP_PORT, HTTP_HOST);

  private String address;
  private Integer httpPort;
  private String httpHost;

  private VerticleOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * Takes the verticle's own keys out of a deployment config, leaving the engine options.
   *
   * @param config the deployment config; its verticle keys are removed
   * @return the verticle's options, validated; absent keys keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming a bad key and its value
   */
  static VerticleOptions takeFrom(JsonObject config) {
    JsonObject own = new JsonObject();
    for (String key : FIELDS.names()) {
      if (config.containsKey(key)) {
        own.put(key, config.remove(key));
      }
    }
    VerticleOptions options = new VerticleOptions();
    FIELDS.read(own, options, LABEL, "");
    FIELDS.validate(options, LABEL, "");
    return options;
  }

  /**
   * @return the event-bus address prefix
   */
  public String address() {
    return address;
  }

  /**
   * @return the HTTP port (0: any free one), or null or below 0 for no HTTP server
   */
  public Integer httpPort() {
    return httpPort;
  }

  /**
   * @return the address the HTTP endpoint listens on
   */
  public String httpHost() {
    return httpHost;
  }
}
