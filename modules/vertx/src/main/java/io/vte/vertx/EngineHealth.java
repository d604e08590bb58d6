package io.vte.vertx;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.TransferEngine;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;

/**
 * Health of one engine as plain JSON: {@code {status: UP|DOWN, engine: open|closed, serverName,
 * segmentName, metadata: ok|degraded, devices:[{name, port, state, up}]}}. The node is UP when the engine
 * is open, the metadata store is not degraded and every local device's port is ACTIVE.
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
      if (engine instanceof TransferEngineImpl impl) {
        boolean degraded = impl.metadataDegraded();
        up &= !degraded;
        json.put("segmentName", impl.segmentName()).put("metadata", degraded ? "degraded" : "ok");
        for (LocalContext ctx : impl.contexts()) {
          JsonObject device = new JsonObject().put("name", ctx.deviceName());
          boolean active;
          try {
            PortAttributes port = ctx.portAttributes();
            active = port.state() == PortState.ACTIVE;
            device.put("port", port.port()).put("state", port.state().name());
          } catch (RuntimeException e) {
            active = false;
            device.put("state", "ERROR").put("error", e.getMessage());
          }
          up &= active;
          devices.add(device.put("up", active));
        }
      }
    }
    return json.put("status", up ? "UP" : "DOWN").put("devices", devices);
  }
}
