package io.vte.cli;

import static io.vte.api.OptionFields.field;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import io.vte.api.DeviceStatus;
import io.vte.api.EngineDiagnostics;
import io.vte.api.ErrorCode;
import io.vte.api.OptionFields;
import io.vte.api.OptionKind;
import io.vte.api.VteException;
import io.vte.cli.common.Blocking;
import io.vte.cli.common.ByteSize;
import io.vte.cli.common.ExitCodes;
import io.vte.cli.common.StopSignal;
import io.vte.engine.HandshakeExposure;
import io.vte.vertx.TransferEngineClient;
import io.vte.vertx.TransferEngineVerticle;
import io.vte.vertx.VerticleOptions;
import io.vte.vertx.VteMetrics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vte serve}: runs a node (a {@link TransferEngineVerticle} with a registered memory pool,
 * Prometheus {@code /metrics} and {@code /health}) until SIGTERM or SIGINT, then undeploys it
 * (unfinished transfers fail with ENGINE_CLOSED) and exits 0. A bad flag exits 2; a config, engine
 * or port that fails to start exits 3. The config file may hold the verticle's keys {@code
 * httpPort}, {@code httpHost} and {@code address} beside the engine options; a flag given on the
 * command line overrides the file. The flags are declared once in {@link #FLAGS}: {@code
 * --http-host} and {@code --address} are the verticle's fields ({@link VerticleOptions}), {@code
 * --http-port} and {@code --pool-size} this command's own.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    header = "Run a node (engine, memory pool, /metrics, /health).",
    description =
        "Run a node: engine, a registered memory pool, /metrics and /health, until SIGTERM/SIGINT.",
    defaultValueProvider = FlagFields.Defaults.class)
public final class ServeCommand implements java.util.concurrent.Callable<Integer> {

  private static final Duration STEP = Duration.ofSeconds(60);

  /** The flags with a default and a range: names, defaults and ranges. */
  static final FlagFields<ServeCommand> FLAGS =
      FlagFields.of(
          ServeCommand.class,
          OptionFields.of(
              field(
                      "httpPort",
                      OptionKind.INT,
                      9464,
                      c -> c.httpPort,
                      (ServeCommand c, Integer v) -> c.httpPort = v)
                  .check(p -> p >= 0 && p <= 65535, "0..65535 (0 = any free port)"),
              VerticleOptions.HTTP_HOST.as(
                  "httpHost", (ServeCommand c) -> c.httpHost, (c, v) -> c.httpHost = v),
              field(
                      "poolSize",
                      FlagFields.BYTE_COUNT,
                      1L << 20,
                      c -> c.poolSize,
                      (ServeCommand c, Long v) -> c.poolSize = v)
                  .check(n -> n >= 0, ">= 0 (0 = none)"),
              VerticleOptions.ADDRESS.as(
                  "address", (ServeCommand c) -> c.address, (c, v) -> c.address = v)));

  @Spec private CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "engine options JSON (default: built-in defaults, see conf/vte.json)")
  private Path config;

  @Option(
      names = "--http-port",
      paramLabel = "N",
      description =
          "port of /metrics and /health, 0 = any free port; given, it overrides httpPort of --config (default: ${DEFAULT-VALUE})")
  private int httpPort;

  @Option(
      names = "--http-host",
      description =
          "address of the HTTP endpoint; given, it overrides httpHost of --config (default: ${DEFAULT-VALUE})")
  private String httpHost;

  @Option(
      names = "--pool-size",
      paramLabel = "BYTES",
      converter = ByteSize.LongConverter.class,
      description =
          "bytes of memory registered as buffer 'pool' for peers to read and write, e.g. 64M, 0 = none (default: ${DEFAULT-VALUE})")
  private long poolSize;

  @Option(
      names = "--address",
      description =
          "event-bus address prefix; given, it overrides address of --config (default: ${DEFAULT-VALUE})")
  private String address;

  /** Creates the command (picocli instantiates it). */
  public ServeCommand() {}

  @Override
  public Integer call() throws Exception {
    FLAGS.validate(this, spec.commandLine());
    JsonObject conf = ExitCodes.starting(() -> NodeConfig.read(config));
    flagOrFile(conf, "--address", TransferEngineVerticle.ADDRESS, address);
    flagOrFile(conf, "--http-port", TransferEngineVerticle.HTTP_PORT, httpPort);
    flagOrFile(conf, "--http-host", TransferEngineVerticle.HTTP_HOST, httpHost);
    VteMetrics node = VteMetrics.createVertx(new VertxOptions());
    TransferEngineVerticle verticle = new TransferEngineVerticle();
    PrintWriter out = spec.commandLine().getOut();
    try (StopSignal stop = StopSignal.install()) {
      String id =
          ExitCodes.starting(
              () ->
                  await(
                      node.vertx()
                          .deployVerticle(verticle, new DeploymentOptions().setConfig(conf))));
      TransferEngineClient client =
          new TransferEngineClient(
              node.vertx().eventBus(), conf.getString(TransferEngineVerticle.ADDRESS));
      if (poolSize > 0) {
        ExitCodes.starting(() -> await(client.register("pool", poolSize, "cpu:0")));
      }
      EngineDiagnostics engine = verticle.engine().diagnostics();
      out.printf(
          "vte serve: server %s segment %s devices %s pool %d bytes%n",
          engine.serverName(),
          engine.segmentName(),
          engine.devices().stream().map(DeviceStatus::name).toList(),
          poolSize);
      HandshakeExposure.warning(engine.serverName(), conf.getValue("auth") != null)
          .ifPresent(w -> out.printf("vte serve: WARNING: %s%n", w));
      String host = conf.getString(TransferEngineVerticle.HTTP_HOST);
      int port = verticle.httpPort();
      out.printf(
          port < 0
              ? "vte serve: no HTTP endpoint (httpPort below 0) (SIGTERM or Ctrl-C to stop)%n"
              : "vte serve: http://%1$s:%2$d/metrics http://%1$s:%2$d/health (SIGTERM or Ctrl-C to stop)%n",
          host,
          port);
      out.flush();
      stop.await();
      out.println("vte serve: stopping");
      out.flush();
      await(node.vertx().undeploy(id));
      out.println("vte serve: stopped");
      out.flush();
      return ExitCodes.OK;
    } finally {
      await(node.vertx().close());
      node.registry().close();
    }
  }

  /**
   * A verticle key the config file may hold too: the flag, when given, wins; else the file's value
   * (checked by the verticle, which names a bad one); else the flag's default.
   */
  private void flagOrFile(JsonObject conf, String flag, String key, Object value) {
    if (spec.commandLine().getParseResult().hasMatchedOption(flag) || !conf.containsKey(key)) {
      conf.put(key, value);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return Blocking.await(f, STEP, "a vte serve step");
  }

  /** Reads and completes node configuration files. */
  static final class NodeConfig {
    private NodeConfig() {}

    /**
     * @param file engine options JSON, or null for the defaults
     * @return the options (without devices the engine takes soft devices from the host's
     *     interfaces)
     */
    static JsonObject read(Path file) throws IOException {
      JsonObject json;
      if (file == null) {
        json = new JsonObject();
      } else {
        if (!Files.isRegularFile(file)) {
          throw new VteException(
              ErrorCode.INVALID_CONFIGURATION, "config file " + file + " does not exist");
        }
        try {
          json = new JsonObject(Files.readString(file));
        } catch (io.vertx.core.json.DecodeException e) {
          throw new VteException(
              ErrorCode.INVALID_CONFIGURATION,
              "config file "
                  + file
                  + " is not a JSON object: "
                  + e.getMessage().replace('\n', ' '));
        }
      }
      return json;
    }
  }
}
