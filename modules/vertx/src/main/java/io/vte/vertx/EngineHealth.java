package io.vte.vertx;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.DeviceStatus;
import io.vte.api.EngineDiagnostics;
import io.vte.api.TransferEngine;

/**
 * Health of one engine as plain JSON: {@code {status: UP|DOWN, engine: open|closed, serverName,
 * segmentName, metadata: ok|degraded, devices:[{name, port, state, up}]}}. The node is UP when the
 * engine is open, the metadata store is not degraded and every local device's port is ACTIVE.
 */
public final class EngineHealth {

  private EngineHealth() {}

  /**
   * @param engine the engine, null when none is running
   * @param open whether the engine is open (not closing or closed)
   * @return the health JSON
   */
  public static JsonObject check(TransferEngine engine, boolean open) {
    JsonObject json = new JsonObject().put("engine", open && engine != null ? "open" : "closed");
    boolean up = open && engine != null;
    JsonArray devices = new JsonArray();
    if (engine != null && open) {
      json.put("serverName", engine.serverName());
      EngineDiagnostics diagnostics = engine.diagnostics();
      boolean degraded = diagnostics.metadata().degraded();
      up &= !degraded;
      json.put("segmentName", diagnostics.segmentName())
          .put("metadata", degraded ? "degraded" : "ok");
      for (DeviceStatus d : diagnostics.devices()) {
        JsonObject device = new JsonObject().put("name", d.name());
        if (d.error() == null) {
          device.put("port", d.port()).put("state", d.portState());
        } else {
          device.put("state", d.portState()).put("error", d.error());
        }
        up &= d.active();
        devices.add(device.put("up", d.active()));
      }
    }
    return json.put("status", up ? "UP" : "DOWN").put("devices", devices);
  }
}
