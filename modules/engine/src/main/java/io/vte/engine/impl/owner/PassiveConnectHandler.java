package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The passive side of the handshake, called by the engine's handshake service: finds the local
 * device named in {@code peer_nic_path} and hands the request to the owner of the requester's NIC
 * path, which answers on its own event loop. Never blocks.
 */
public final class PassiveConnectHandler {

  private final Map<String, LocalContext> byDevice = new HashMap<>();

  /**
   * @param contexts this node's local contexts
   */
  public PassiveConnectHandler(List<LocalContext> contexts) {
    for (LocalContext ctx : contexts) {
      byDevice.put(ctx.deviceName(), ctx);
    }
  }

  /**
   * @param request a peer's connect request
   * @return the answer: ACCEPTED with our side, or a reject status naming the problem
   */
  public Future<ConnectReply> connect(ConnectRequest request) {
    String target = request.getPeerNicPath();
    LocalContext ctx =
        NicPath.problem(target) == null ? byDevice.get(NicPath.parse(target).device()) : null;
    if (ctx == null) {
      return Future.succeededFuture(
          ConnectReply.newBuilder()
              .setStatus(ConnectStatus.UNKNOWN_DEVICE)
              .setReason(
                  "no local device for peer_nic_path '"
                      + target
                      + "'; devices: "
                      + byDevice.keySet())
              .build());
    }
    return ctx.passiveConnect(request);
  }
}
