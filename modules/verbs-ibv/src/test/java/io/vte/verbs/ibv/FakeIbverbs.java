package io.vte.verbs.ibv;

import io.vte.verbs.Gid;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-only control of the fake libibverbs ({@code native/test/fake_ibverbs.c}) that the {@code
 * fake-ibverbs} surefire execution puts first on {@code LD_LIBRARY_PATH}: scripts devices, ports,
 * GIDs, failures, completions and async events, and reads back the call log and live-object counts.
 * Public for the engine's tests over the fake (the module's test jar).
 */
public final class FakeIbverbs {

  /** {@code IBV_LINK_LAYER_INFINIBAND}. */
  public static final int LINK_INFINIBAND = 1;

  /** {@code IBV_LINK_LAYER_ETHERNET}. */
  public static final int LINK_ETHERNET = 2;

  /** {@code IBV_GID_TYPE_ROCE_V1}. */
  public static final int ROCE_V1 = 1;

  /** {@code IBV_GID_TYPE_ROCE_V2}. */
  public static final int ROCE_V2 = 2;

  /** {@code IBV_WC_WITH_IMM}. */
  public static final int WC_WITH_IMM = 1 << 1;

  static {
    String path = System.getProperty("vte.ibv.fake.library");
    if (path == null) {
      throw new IllegalStateException("fake tests run only in the fake-ibverbs surefire execution");
    }
    System.load(path);
  }

  private FakeIbverbs() {}

  /**
   * Back to one device {@code fake_mlx5_0} with one ACTIVE RoCE port, an empty log and no scripts.
   */
  public static native void reset();

  public static native void setDevices(String[] names, int portsPerDevice);

  public static native void setDeviceListErrno(int errno);

  /** Sets a port's attributes on every device (no event). */
  public static void setPort(
      int port, int state, int mtuCode, int lid, int linkLayer, int gidTableLength) {
    setDevicePort(-1, port, state, mtuCode, lid, linkLayer, gidTableLength);
  }

  /** Sets a port's attributes on the device listed {@code device}-th (-1: all); no event. */
  public static native void setDevicePort(
      int device, int port, int state, int mtuCode, int lid, int linkLayer, int gidTableLength);

  /** Sets a GID table entry and its type on every device. */
  public static void setGid(int port, int index, byte[] gid, int type) {
    setDeviceGid(-1, port, index, gid, type);
  }

  /** Sets a GID table entry and its type on the device listed {@code device}-th (-1: all). */
  public static native void setDeviceGid(int device, int port, int index, byte[] gid, int type);

  /**
   * The next call of {@code function} whose argument is {@code arg} (-1: any) fails with {@code
   * errno}.
   */
  public static void failNext(String function, int errno, int arg) {
    failNextAfter(function, errno, arg, 0);
  }

  /** The ifindex of the netdev {@code ibv_query_gid_ex} reports for a GID entry (0: none). */
  public static native void setGidIfindex(int port, int index, int ifindex);

  /** As {@link #failNext}, after {@code skip} matching calls succeed. */
  public static native void failNextAfter(String function, int errno, int arg, int skip);

  /** Devices report {@code <root>/<name>} as their sysfs path (gid_attrs are read from there). */
  public static native void setSysfsRoot(String root);

  /** The device limits {@code ibv_query_device} reports and the fake enforces. */
  public static native void setCaps(
      int maxQpWr,
      int maxCqe,
      int maxQpRdAtom,
      int maxQpInitRdAtom,
      int maxInlineData,
      int compVectors);

  /**
   * On: posted work requests are only logged (no queueing, no data, no completions), for tests of
   * the marshalling alone.
   */
  public static native void recordOnly(boolean on);

  /** Sets a port's state on every device; a change raises PORT_ACTIVE or PORT_ERR. */
  public static void setPortState(int port, int state) {
    setDevicePortState(-1, port, state);
  }

  /**
   * Sets a port's state on the device listed {@code device}-th (-1: all); a change raises
   * PORT_ACTIVE or PORT_ERR on the contexts open on it.
   */
  public static native void setDevicePortState(int device, int port, int state);

  /** Sets a port's {@code max_msg_sz} and P_Key table length on every device. */
  public static native void setPortLimits(int port, long maxMessageSize, int pkeyTableLength);

  /**
   * After {@code sends} more send work requests on the device listed {@code device}-th (-1: on
   * any), port {@code port} of that device (-1: of every device) goes down, raising PORT_ERR: the
   * work requests after it meet a down port, deterministically mid-transfer.
   */
  public static native void portDownAfterSends(int device, int port, long sends);

  public static native boolean pushCompletion(
      int cqOrdinal,
      long wrId,
      int status,
      int opcode,
      int byteLen,
      int qpNum,
      int vendorErr,
      int imm,
      int wcFlags);

  public static native boolean pushAsyncEvent(int type, int arg);

  /**
   * A QP-fatal error as a NIC raises one: QP {@code qpNum} moves to ERR (later sends complete
   * {@code WR_FLUSH_ERR}) and its context gets {@code IBV_EVENT_QP_FATAL}.
   *
   * @return false when no QP has that number
   */
  public static native boolean failQp(int qpNum);

  /**
   * Damage in memory after the DMA, which no link CRC sees: the next {@code writes} RDMA WRITEs
   * land with one byte flipped in the middle of their destination at the responder, the next {@code
   * reads} RDMA READs with one byte flipped in the middle of their first local SGE (counted in
   * {@code landed_corrupted}, logged as {@code corrupt} lines); {@code 0, 0} stops it.
   */
  public static native void corruptLanded(long writes, long reads);

  public static native String log();

  public static native void clearLog();

  /** Live objects of a kind (context, pd, mr, cq, channel, qp, device_list) or a named counter. */
  public static native long count(String name);

  /**
   * @param prefix first word of a log line @return the matching lines, in order
   */
  public static List<String> lines(String prefix) {
    long dropped = count("log_dropped");
    if (dropped > 0) {
      throw new IllegalStateException(
          "the fake's log was cut at its limit ("
              + dropped
              + " later lines dropped): a long run should read a counter instead");
    }
    List<String> out = new ArrayList<>();
    for (String line : log().split("\n")) {
      if (line.equals(prefix) || line.startsWith(prefix + " ")) {
        out.add(line);
      }
    }
    return out;
  }

  /**
   * @param line a log line @return its {@code key=value} fields
   */
  public static Map<String, String> fields(String line) {
    Map<String, String> out = new HashMap<>();
    for (String token : line.split(" ")) {
      int eq = token.indexOf('=');
      if (eq > 0) {
        out.put(token.substring(0, eq), token.substring(eq + 1));
      }
    }
    return out;
  }

  /**
   * @param address an IP literal
   * @return its GID (IPv4-mapped for IPv4), as the 16 bytes {@link #setGid} takes
   */
  public static byte[] gid(String address) {
    try {
      return Gid.fromInetAddress(InetAddress.getByName(address)).toBytes();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /**
   * @return the "refused" lines: calls the fake turned down, each naming the rule
   */
  public static List<String> refusals() {
    // the counter first: a long run's log may be cut, and reading it all costs a large string
    return count("refusals") == 0 ? List.of() : lines("refused");
  }

  /** Fails unless every object the fake handed out was destroyed. */
  public static void assertNothingLive() {
    for (String kind : new String[] {"context", "pd", "mr", "cq", "channel", "qp", "device_list"}) {
      long live = count(kind);
      if (live != 0) {
        throw new AssertionError(live + " " + kind + " object(s) not destroyed; log:\n" + log());
      }
    }
  }
}
