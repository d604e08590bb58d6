package io.vte.vertx;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;

/**
 * Creates a Vert.x instance whose Micrometer backend is a Prometheus registry, so the engine's
 * meters ({@code vte.engine.*}, {@code vte.owner.*}, {@code vte.device.*}), the verticle's ({@code
 * vte.vertx.*}) and the JVM's (memory with direct buffers, threads, classes, CPU) can be scraped.
 * Vert.x's event-bus meters are off: vertx-micrometer-metrics 5.0.7 registers its {@code
 * vertx.eventbus.handlers} and {@code vertx.eventbus.pending} gauges again for every consumer and
 * every message received, which Micrometer answers with "This Gauge has been already registered" on
 * the first repeat (on every {@code vte serve} start); its HTTP server meters are off too, for the
 * same answer about {@code vertx.http.server.active.connections} at the first scrape, and its HTTP
 * client meters, for {@code vertx.http.client.active.connections} at the second handshake client's
 * first call (each gRPC client is an HTTP client). The verticle measures its own bus traffic
 * ({@code vte.vertx.batch.latency}, {@code vte.vertx.batches.failed}); the engine its handshakes.
 *
 * @param vertx the Vert.x instance
 * @param registry its Prometheus registry ({@link PrometheusMeterRegistry#scrape()})
 */
public record VteMetrics(Vertx vertx, PrometheusMeterRegistry registry) {

  /**
   * @param options base Vert.x options (metrics options are replaced)
   * @return a Vert.x instance reporting to a new Prometheus registry
   */
  public static VteMetrics createVertx(VertxOptions options) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    Vertx vertx =
        Vertx.builder()
            .with(
                new VertxOptions(options)
                    .setMetricsOptions(
                        new MicrometerMetricsOptions()
                            .setEnabled(true)
                            .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
                            .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
                            .addDisabledMetricsCategory(MetricsDomain.HTTP_CLIENT)))
            .withMetrics(new MicrometerMetricsFactory(registry))
            .build();
    return new VteMetrics(vertx, registry);
  }
}
