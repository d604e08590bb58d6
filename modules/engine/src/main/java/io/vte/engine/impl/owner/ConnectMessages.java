package io.vte.engine.impl.owner;

import com.google.protobuf.ByteString;
import io.vte.engine.impl.handshake.PathAgreement;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds and checks the Connect messages of one owner's side: its NIC path, port and endpoint QPs.
 */
final class ConnectMessages {

  /** Most QPs one endpoint may have (both sides). */
  static final int MAX_QPS_PER_ENDPOINT = 16;

  private final NicPath localNicPath;
  private final VerbsContext device;
  private final int port;

  ConnectMessages(NicPath localNicPath, VerbsContext device, int port) {
    this.localNicPath = localNicPath;
    this.device = device;
    this.port = port;
  }

  /**
   * @return the attributes of the port in use, as of now
   */
  PortAttributes port() {
    return device.queryPort(port);
  }

  /**
   * @return the active request of {@code ep} to its peer NIC path
   */
  ConnectRequest request(Endpoint ep) {
    PortAttributes attrs = port();
    return ConnectRequest.newBuilder()
        .setLocalNicPath(localNicPath.toString())
        .setPeerNicPath(ep.path.toString())
        .setGid(ByteString.copyFrom(attrs.gid().toBytes()))
        .setLid(attrs.lid())
        .setMtu(attrs.activeMtu())
        .setLinkLayer(attrs.linkLayer().ordinal())
        .setGidType(attrs.gidType().ordinal())
        .setReadDepth(device.queueLimits().readDepth())
        .addAllQps(qpInfos(ep))
        .setGeneration(ep.generation)
        .build();
  }

  /**
   * @return the active side's ready-to-use for {@code ep}: its request again, naming the peer
   *     endpoint's generation its QPs are now connected to (in RTS)
   */
  ConnectRequest ready(Endpoint ep) {
    return request(ep).toBuilder().setReadyGeneration(ep.peerGeneration).build();
  }

  /**
   * @return the disconnect of {@code ep}: asks the peer to retire its endpoint of the generation
   *     {@code ep} is connected to, and carries only the paths and generations
   */
  ConnectRequest disconnect(Endpoint ep) {
    return ConnectRequest.newBuilder()
        .setLocalNicPath(localNicPath.toString())
        .setPeerNicPath(ep.path.toString())
        .setGeneration(ep.generation)
        .setDisconnectGeneration(ep.peerGeneration)
        .build();
  }

  /**
   * @return the answer to a disconnect: the endpoint it named is retired, or was already gone
   */
  ConnectReply disconnected(String what) {
    return reject(localNicPath, ConnectStatus.DISCONNECTED, what);
  }

  /**
   * @return the ACCEPTED reply describing {@code ep}
   */
  ConnectReply accepted(Endpoint ep) {
    PortAttributes attrs = port();
    return ConnectReply.newBuilder()
        .setStatus(ConnectStatus.ACCEPTED)
        .setLocalNicPath(localNicPath.toString())
        .setGid(ByteString.copyFrom(attrs.gid().toBytes()))
        .setLid(attrs.lid())
        .setMtu(attrs.activeMtu())
        .setLinkLayer(attrs.linkLayer().ordinal())
        .setGidType(attrs.gidType().ordinal())
        .setReadDepth(device.queueLimits().readDepth())
        .addAllQps(qpInfos(ep))
        .setGeneration(ep.generation)
        .build();
  }

  /**
   * @return a reject with {@code status} and a reason naming the problem
   */
  ConnectReply reject(ConnectStatus status, String reason) {
    return reject(localNicPath, status, reason);
  }

  /**
   * @return a reject from {@code local} with {@code status} and a reason naming the problem
   */
  static ConnectReply reject(NicPath local, ConnectStatus status, String reason) {
    return ConnectReply.newBuilder()
        .setStatus(status)
        .setReason(reason)
        .setLocalNicPath(local.toString())
        .build();
  }

  private static List<QpInfo> qpInfos(Endpoint ep) {
    List<QpInfo> infos = new ArrayList<>(ep.qps.length);
    for (int i = 0; i < ep.qps.length; i++) {
      infos.add(QpInfo.newBuilder().setQpNum(ep.qps[i].qpNum()).setPsn(ep.psns[i]).build());
    }
    return infos;
  }

  /**
   * @return what is wrong with a peer's request, naming the value, or null when it is usable
   */
  static String validate(ConnectRequest request) {
    String badPath = NicPath.problem(request.getLocalNicPath());
    if (badPath != null) {
      return "local_nic_path " + badPath;
    }
    if (request.getQpsCount() < 1 || request.getQpsCount() > MAX_QPS_PER_ENDPOINT) {
      return "qps must hold 1.." + MAX_QPS_PER_ENDPOINT + " QPs, got " + request.getQpsCount();
    }
    if (request.getGid().size() != 16) {
      return "gid must be 16 bytes, got " + request.getGid().size();
    }
    if (request.getLid() > 0xffff) {
      return "lid out of range: " + request.getLid();
    }
    if (!PathAgreement.validMtu(request.getMtu())) {
      return "mtu must be 256, 512, 1024, 2048 or 4096, got " + request.getMtu();
    }
    return null;
  }
}
