package io.vte.handshake;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.DeviceState;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.SharedMemoryDesc;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.util.List;

/**
 * Checks handshake messages field by field before anyone acts on them. Requests a server receives
 * fail with {@link ErrorCode#INVALID_ARGUMENT}; replies a client receives fail with {@link
 * ErrorCode#PROTOCOL_ERROR}. Each message names the field and the bad value. Counts are checked
 * before elements are visited, so absurd inputs cost no more than their size check.
 */
public final class HandshakeValidator {

  /** Longest NIC path, topic, segment name or sender name. */
  public static final int MAX_NAME_LENGTH = 256;

  /** GID length in bytes. */
  public static final int GID_LENGTH = 16;

  /** Largest LID. */
  public static final int MAX_LID = 0xFFFF;

  /** Most QPs per endpoint. */
  public static final int MAX_QPS = 16;

  /** Largest 24-bit value (PSN, QP number). */
  public static final int MAX_24_BIT = 0xFF_FFFF;

  /** Largest notification payload in bytes. */
  public static final int MAX_NOTIFY_PAYLOAD = 64 * 1024;

  /** Most devices or buffers in a segment descriptor. */
  public static final int MAX_SEGMENT_ENTRIES = 65_536;

  /** Length of {@code SharedMemoryDesc.nonce}. */
  public static final int SHM_NONCE_LENGTH = 16;

  /** Shortest heartbeat period a watcher of device states may ask for, ms. */
  public static final int MIN_HEARTBEAT_MS = 100;

  /** Heartbeat period of a watcher that asks for none (heartbeat_ms 0), ms. */
  public static final int DEFAULT_HEARTBEAT_MS = 2_000;

  /** Longest heartbeat period a watcher of device states may ask for, ms. */
  public static final int MAX_HEARTBEAT_MS = 60_000;

  private static final int ABBREVIATE_AT = 64;

  private HandshakeValidator() {}

  /**
   * @param request a Connect request received by a server (a disconnect, with {@code
   *     disconnect_generation} set, needs only its paths and generation)
   * @throws VteException INVALID_ARGUMENT naming the first bad field
   */
  public static void validate(ConnectRequest request) {
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    nicPath(code, "local_nic_path", request.getLocalNicPath());
    nicPath(code, "peer_nic_path", request.getPeerNicPath());
    if (request.getDisconnectGeneration() == 0) {
      // a disconnect names an endpoint by its paths and generations: it carries no port or QPs
      port(code, "", request.getGid(), request.getLid(), request.getMtu());
      qps(code, "qps", request.getQpsList());
    }
    if (request.getGeneration() < 1) {
      throw fail(
          code, "generation must be >= 1: " + Long.toUnsignedString(request.getGeneration()));
    }
    wireVersions(code, "", request.getWireVersionMin(), request.getWireVersionMax());
  }

  /**
   * @param request a GetSegment request received by a server
   * @throws VteException INVALID_ARGUMENT naming the bad field
   */
  public static void validate(GetSegmentRequest request) {
    maxLength(ErrorCode.INVALID_ARGUMENT, "name", request.getName());
  }

  /**
   * @param request a WatchDevices request received by a server
   * @throws VteException INVALID_ARGUMENT naming the first bad field
   */
  public static void validate(WatchDevicesRequest request) {
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    maxLength(code, "watcher", request.getWatcher());
    int heartbeat = request.getHeartbeatMs();
    if (heartbeat != 0 && (heartbeat < MIN_HEARTBEAT_MS || heartbeat > MAX_HEARTBEAT_MS)) {
      throw fail(
          code,
          "heartbeat_ms must be 0 or within "
              + MIN_HEARTBEAT_MS
              + ".."
              + MAX_HEARTBEAT_MS
              + ": "
              + Integer.toUnsignedString(heartbeat));
    }
  }

  /**
   * @param states a message of a WatchDevices stream
   * @throws VteException PROTOCOL_ERROR naming the first bad field
   */
  public static void validateReply(DeviceStates states) {
    ErrorCode code = ErrorCode.PROTOCOL_ERROR;
    maxLength(code, "server_name", states.getServerName());
    if (states.getDevicesCount() > MAX_SEGMENT_ENTRIES) {
      throw fail(code, "at most " + MAX_SEGMENT_ENTRIES + " devices: " + states.getDevicesCount());
    }
    for (DeviceState d : states.getDevicesList()) {
      maxLength(code, "device name", d.getName());
      maxLength(code, "device reason", d.getReason());
    }
  }

  /**
   * @param request a Notify request received by a server
   * @throws VteException INVALID_ARGUMENT naming the first bad field
   */
  public static void validate(NotifyRequest request) {
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    if (request.getFrom().isEmpty()) {
      throw fail(code, "from must not be empty");
    }
    maxLength(code, "from", request.getFrom());
    maxLength(code, "topic", request.getTopic());
    if (request.getPayload().size() > MAX_NOTIFY_PAYLOAD) {
      throw fail(
          code,
          "payload must be <= " + MAX_NOTIFY_PAYLOAD + " bytes: " + request.getPayload().size());
    }
    if (request.getSequence() < 1) {
      throw fail(code, "sequence must be >= 1: " + Long.toUnsignedString(request.getSequence()));
    }
  }

  /**
   * A reply with a known non-ACCEPTED status is valid whatever its other fields; an ACCEPTED reply
   * must carry a well-formed responder side.
   *
   * @param reply a Connect reply received by a client
   * @throws VteException PROTOCOL_ERROR naming the first bad field
   */
  public static void validateReply(ConnectReply reply) {
    ErrorCode code = ErrorCode.PROTOCOL_ERROR;
    ConnectStatus status = reply.getStatus();
    if (status == ConnectStatus.UNRECOGNIZED
        || status == ConnectStatus.CONNECT_STATUS_UNSPECIFIED) {
      throw fail(code, "reply status is not a known status: " + reply.getStatusValue());
    }
    maxLength(code, "reply reason", reply.getReason());
    wireVersions(code, "reply ", reply.getWireVersionMin(), reply.getWireVersionMax());
    if (status != ConnectStatus.ACCEPTED) {
      return;
    }
    nicPath(code, "reply local_nic_path", reply.getLocalNicPath());
    port(code, "reply ", reply.getGid(), reply.getLid(), reply.getMtu());
    qps(code, "reply qps", reply.getQpsList());
    if (reply.getGeneration() < 1) {
      throw fail(
          code, "reply generation must be >= 1: " + Long.toUnsignedString(reply.getGeneration()));
    }
  }

  private static void wireVersions(ErrorCode code, String prefix, int min, int max) {
    String problem = WireVersions.problem(min, max);
    if (problem != null) {
      throw fail(code, prefix + "wire_version_min/max: " + problem);
    }
  }

  /**
   * @param descriptor a segment descriptor received by a client
   * @throws VteException PROTOCOL_ERROR naming the first bad field
   */
  public static void validateReply(SegmentDescriptor descriptor) {
    ErrorCode code = ErrorCode.PROTOCOL_ERROR;
    maxLength(code, "segment name", descriptor.getName());
    maxLength(code, "segment server_name", descriptor.getServerName());
    maxLength(code, "segment transport", descriptor.getTransport());
    maxLength(code, "segment shm_boot_id", descriptor.getShmBootId());
    int devices = descriptor.getDevicesCount();
    if (devices > MAX_SEGMENT_ENTRIES || descriptor.getBuffersCount() > MAX_SEGMENT_ENTRIES) {
      throw fail(
          code,
          "segment has too many entries: "
              + devices
              + " devices, "
              + descriptor.getBuffersCount()
              + " buffers (max "
              + MAX_SEGMENT_ENTRIES
              + ")");
    }
    for (int i = 0; i < devices; i++) {
      DeviceDesc device = descriptor.getDevices(i);
      String field = "segment devices[" + i + "]";
      if (device.getName().isEmpty()) {
        throw fail(code, field + ".name must not be empty");
      }
      maxLength(code, field + ".name", device.getName());
      maxLength(code, field + ".transport", device.getTransport());
      port(code, field + ".", device.getGid(), device.getLid(), device.getMtu());
    }
    for (int i = 0; i < descriptor.getBuffersCount(); i++) {
      BufferDesc buffer = descriptor.getBuffers(i);
      String field = "segment buffers[" + i + "]";
      maxLength(code, field + ".location", buffer.getLocation());
      if (Long.compareUnsigned(buffer.getAddress(), -1L - buffer.getLength()) > 0) {
        throw fail(
            code,
            field
                + " address "
                + Long.toUnsignedString(buffer.getAddress())
                + " + length "
                + Long.toUnsignedString(buffer.getLength())
                + " overflows 64 bits");
      }
      if (buffer.getRkeysCount() != devices) {
        throw fail(
            code,
            field + ".rkeys has " + buffer.getRkeysCount() + " keys for " + devices + " devices");
      }
      if (buffer.hasShm()) {
        sharedMemory(code, field + ".shm", buffer.getShm());
      }
    }
  }

  private static void sharedMemory(ErrorCode code, String field, SharedMemoryDesc shm) {
    if (shm.getPath().isEmpty() || !shm.getPath().startsWith("/")) {
      throw fail(
          code, field + ".path must be an absolute path: '" + abbreviate(shm.getPath()) + "'");
    }
    maxLength(code, field + ".path", shm.getPath());
    maxLength(code, field + ".boot_id", shm.getBootId());
    if (shm.getNonce().size() != SHM_NONCE_LENGTH) {
      throw fail(
          code, field + ".nonce must be " + SHM_NONCE_LENGTH + " bytes: " + shm.getNonce().size());
    }
  }

  /**
   * @param text any text
   * @return the text, cut to a readable length for error messages
   */
  public static String abbreviate(String text) {
    if (text == null) {
      return "null";
    }
    if (text.length() <= ABBREVIATE_AT) {
      return text;
    }
    return text.substring(0, ABBREVIATE_AT) + "...(" + text.length() + " chars)";
  }

  private static void nicPath(ErrorCode code, String field, String path) {
    String problem = NicPath.problem(path);
    if (problem != null) {
      throw fail(code, field + " " + problem);
    }
  }

  private static void port(ErrorCode code, String prefix, ByteString gid, int lid, int mtu) {
    if (gid.size() != GID_LENGTH) {
      throw fail(code, prefix + "gid must be " + GID_LENGTH + " bytes: " + gid.size());
    }
    if (Integer.compareUnsigned(lid, MAX_LID) > 0) {
      throw fail(code, prefix + "lid must be 0.." + MAX_LID + ": " + Integer.toUnsignedString(lid));
    }
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
      throw fail(
          code,
          prefix
              + "mtu must be one of 256, 512, 1024, 2048, 4096: "
              + Integer.toUnsignedString(mtu));
    }
  }

  private static void qps(ErrorCode code, String field, List<QpInfo> qps) {
    int count = qps.size();
    if (count < 1 || count > MAX_QPS) {
      throw fail(code, field + " count must be 1.." + MAX_QPS + ": " + count);
    }
    for (int i = 0; i < count; i++) {
      QpInfo qp = qps.get(i);
      if (Integer.compareUnsigned(qp.getQpNum(), MAX_24_BIT) > 0) {
        throw fail(
            code,
            field
                + "["
                + i
                + "].qp_num must be 24-bit: "
                + Integer.toUnsignedString(qp.getQpNum()));
      }
      if (Integer.compareUnsigned(qp.getPsn(), MAX_24_BIT) > 0) {
        throw fail(
            code,
            field + "[" + i + "].psn must be 24-bit: " + Integer.toUnsignedString(qp.getPsn()));
      }
    }
  }

  private static void maxLength(ErrorCode code, String field, String value) {
    if (value.length() > MAX_NAME_LENGTH) {
      throw fail(
          code, field + " must be <= " + MAX_NAME_LENGTH + " chars: '" + abbreviate(value) + "'");
    }
  }

  private static VteException fail(ErrorCode code, String message) {
    return new VteException(code, message);
  }
}
