package io.vte.engine.impl.owner;

import io.vte.api.EngineOptions;
import java.time.Duration;

/**
 * The owner configuration the owner tests were written for, made the way an engine makes its own.
 */
final class OwnerTestConfig {

  private OwnerTestConfig() {}

  /**
   * @return {@link OwnerConfig#from} the default engine options but one owner per device, 256 work
   *     requests per QP, 1024 endpoints per owner and a 67 ms QP timeout (verbs exponent 14): the
   *     sizes these tests were written for (they look endpoints up on owner 0, fill deep send
   *     queues and wait for QP timeouts)
   */
  static OwnerConfig defaults() {
    return OwnerConfig.from(options());
  }

  /**
   * @return the engine options {@link #defaults()} is made from, to change before making one
   */
  static EngineOptions options() {
    return new EngineOptions()
        .setWorkersPerContext(1)
        .setMaxOutstandingPerQp(256)
        .setEndpointCacheSize(1024)
        .setQpTimeout(Duration.ofNanos(4096L << 14));
  }
}
