package io.vte.engine.impl.owner.connect;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.PathAgreement;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.handshake.NicPath;
import io.vte.handshake.WireVersions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds and checks the Connect messages of one owner's side: its NIC path, port, endpoint QPs and
 * the wire versions it speaks ({@link WireVersions#SPOKEN}).
 */
public final class ConnectMessages {

  /** Most QPs one endpoint may have (both sides). */
  public static final int MAX_QPS_PER_ENDPOINT = 16;

  private final NicPath localNicPath;
  private final VerbsContext device;
  private final OwnerConfig config;

  /**
   * @param localNicPath the owner's NIC path
   * @param device the opened device (port attributes)
   * @param config the port in use and the QPs' timeouts
   */
  public ConnectMessages(NicPath localNicPath, VerbsContext device, OwnerConfig config) {
    this.localNicPath = localNicPath;
    this.device = device;
    this.config = config;
  }

  /**
   * @return the attributes of the port in use, as of now
   */
  public PortAttributes port() {
    return device.queryPort(config.port());
  }

  /**
   * @return the active request of {@code ep} to its peer NIC path
   */
  public ConnectRequest request(Endpoint ep) {
    PortAttributes attrs = port();
    return ConnectRequest.newBuilder()
        .setLocalNicPath(localNicPath.toString())
        .setPeerNicPath(ep.path().toString())
        .setGid(ByteString.copyFrom(attrs.gid().toBytes()))
        .setLid(attrs.lid())
        .setMtu(attrs.activeMtu())
        .setLinkLayer(attrs.linkLayer().ordinal())
        .setGidType(attrs.gidType().ordinal())
        .setReadDepth(device.queueLimits().readDepth())
        .setWireVersionMin(WireVersions.SPOKEN.min())
        .setWireVersionMax(WireVersions.SPOKEN.max())
        .addAllQps(qpInfos(ep))
        .setGeneration(ep.generation())
        .build();
  }

  /**
   * @return the active side's ready-to-use for {@code ep}: its request again, naming the peer
   *     endpoint's generation its QPs are now connected to (in RTS)
   */
  public ConnectRequest ready(Endpoint ep) {
    return request(ep).toBuilder().setReadyGeneration(ep.peerGeneration()).build();
  }

  /**
   * @return the disconnect of {@code ep}: asks the peer to retire its endpoint of the generation
   *     {@code ep} is connected to, and carries only the paths and generations
   */
  public ConnectRequest disconnect(Endpoint ep) {
    return ConnectRequest.newBuilder()
        .setLocalNicPath(localNicPath.toString())
        .setPeerNicPath(ep.path().toString())
        .setGeneration(ep.generation())
        .setDisconnectGeneration(ep.peerGeneration())
        .build();
  }

  /**
   * @return the answer to a disconnect: the endpoint it named is retired, or was already gone
   */
  public ConnectReply disconnected(String what) {
    return reject(localNicPath, ConnectStatus.DISCONNECTED, what);
  }

  /**
   * @return the ACCEPTED reply describing {@code ep}
   */
  public ConnectReply accepted(Endpoint ep) {
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
        .setWireVersionMin(WireVersions.SPOKEN.min())
        .setWireVersionMax(WireVersions.SPOKEN.max())
        .setWireVersion(ep.wireVersion())
        .addAllQps(qpInfos(ep))
        .setGeneration(ep.generation())
        .build();
  }

  /**
   * @return a reject with {@code status} and a reason naming the problem
   */
  public ConnectReply reject(ConnectStatus status, String reason) {
    return reject(localNicPath, status, reason);
  }

  /**
   * @return a reject from {@code local} with {@code status} and a reason naming the problem
   */
  public static ConnectReply reject(NicPath local, ConnectStatus status, String reason) {
    return ConnectReply.newBuilder()
        .setStatus(status)
        .setReason(reason)
        .setLocalNicPath(local.toString())
        .setWireVersionMin(WireVersions.SPOKEN.min())
        .setWireVersionMax(WireVersions.SPOKEN.max())
        .build();
  }

  private static List<QpInfo> qpInfos(Endpoint ep) {
    List<QpInfo> infos = new ArrayList<>(ep.qpCount());
    for (int i = 0; i < ep.qpCount(); i++) {
      infos.add(QpInfo.newBuilder().setQpNum(ep.qp(i).qpNum()).setPsn(ep.psn(i)).build());
    }
    return infos;
  }

  /**
   * @return the highest wire version this side and the requester both speak, 0 when none
   */
  public static int agreedVersion(ConnectRequest request) {
    return WireVersions.SPOKEN.highestCommon(
        WireVersions.announced(request.getWireVersionMin(), request.getWireVersionMax()));
  }

  /**
   * @return the VERSION_MISMATCH reply to a request whose range shares no version with this side's
   */
  public ConnectReply versionMismatch(ConnectRequest request) {
    WireVersions peer =
        WireVersions.announced(request.getWireVersionMin(), request.getWireVersionMax());
    return reject(
        ConnectStatus.VERSION_MISMATCH,
        WireVersions.SPOKEN.mismatchReason(peer, request.getLocalNicPath()));
  }

  /**
   * @return what is wrong with a peer's request, naming the value, or null when it is usable
   */
  public static String validate(ConnectRequest request) {
    String badPath = NicPath.problem(request.getLocalNicPath());
    if (badPath != null) {
      return "local_nic_path " + badPath;
    }
    String badRange =
        WireVersions.problem(request.getWireVersionMin(), request.getWireVersionMax());
    if (badRange != null) {
      return "wire_version_min/max: " + badRange;
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

  /**
   * @return the verbs that connect the QPs of {@code ep} to those a peer's ACCEPTED reply names
   * @throws RuntimeException when the reply does not fit ours (GID type, MTU, number of QPs)
   */
  public Consumer<QueuePair[]> connectTo(Endpoint ep, ConnectReply reply) {
    PortAttributes attrs = port();
    PathAgreement.requireSameGidType(attrs, reply.getGidType(), reply.getLocalNicPath());
    return connectTo(
        ep,
        reply.getQpsList(),
        reply.getLid(),
        reply.getGid(),
        reply.getReadDepth(),
        PathAgreement.pathMtu(
            attrs, reply.getLinkLayer(), reply.getMtu(), reply.getLocalNicPath()));
  }

  /**
   * @return the verbs that connect the QPs of {@code ep} to those a peer's request names
   * @throws RuntimeException when the request does not fit ours (GID type, MTU, number of QPs)
   */
  public Consumer<QueuePair[]> connectTo(Endpoint ep, ConnectRequest request) {
    PortAttributes attrs = port();
    PathAgreement.requireSameGidType(attrs, request.getGidType(), request.getLocalNicPath());
    return connectTo(
        ep,
        request.getQpsList(),
        request.getLid(),
        request.getGid(),
        request.getReadDepth(),
        PathAgreement.pathMtu(
            attrs, request.getLinkLayer(), request.getMtu(), request.getLocalNicPath()));
  }

  /**
   * Checks the peer's QPs against ours (on the owner's thread) and returns the verbs that connect
   * them, to run off it: each QP to RTR towards its peer, then to RTS.
   *
   * @throws VteException PROTOCOL_ERROR when the peer sent another number of QPs
   */
  private Consumer<QueuePair[]> connectTo(
      Endpoint ep, List<QpInfo> peerQps, int lid, ByteString gid, int readDepth, int pathMtu) {
    if (peerQps.size() != ep.qpCount()) {
      throw new VteException(
          ErrorCode.PROTOCOL_ERROR,
          "peer sent " + peerQps.size() + " QPs for " + ep.qpCount() + " of ours");
    }
    Gid peerGid = Gid.fromBytes(gid.toByteArray());
    QpPeer[] peers = new QpPeer[peerQps.size()];
    RtsAttributes[] rts = new RtsAttributes[peers.length];
    for (int i = 0; i < peers.length; i++) {
      QpInfo info = peerQps.get(i);
      peers[i] =
          new QpPeer(
              info.getQpNum(), lid, peerGid, info.getPsn() & 0xffffff, Math.min(readDepth, 255));
      rts[i] =
          new RtsAttributes(
              ep.psn(i), config.qpTimeout(), config.qpRetryCount(), config.qpRnrRetry());
    }
    return qps -> {
      for (int i = 0; i < qps.length; i++) {
        qps[i].toRtr(peers[i], pathMtu);
        qps[i].toRts(rts[i]);
      }
    };
  }
}
