package io.vte.cli.bench;

import io.vte.api.EngineOptions;
import java.util.List;

/** Engine options for the bench's in-process tests: one soft device on loopback, one owner. */
final class LoopbackEngineOptions {

  private LoopbackEngineOptions() {}

  /**
   * @param device the soft device's name, unique per engine of a test
   * @return options of an engine with that one device on 127.0.0.1
   */
  static EngineOptions oneDevice(String device) {
    return new EngineOptions()
        .setDevices(List.of(device + "@127.0.0.1"))
        .setWorkersPerContext(1)
        .setRpcHost("127.0.0.1");
  }
}
