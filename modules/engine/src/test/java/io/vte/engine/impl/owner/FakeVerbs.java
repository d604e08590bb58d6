package io.vte.engine.impl.owner;

import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.CompletionNotificationHandler;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Single-threaded fakes of the verbs SPI: the test plays the NIC by completing posted work
 * requests.
 */
final class FakeVerbs {

  private static final AtomicInteger QP_NUMS = new AtomicInteger(100);

  private FakeVerbs() {}

  /** A growable FIFO of primitive longs, so the fake NIC allocates nothing in steady state. */
  static final class LongRing {
    private long[] items = new long[64];
    private int head;
    private int size;

    void add(long v) {
      if (size == items.length) {
        long[] bigger = new long[items.length * 2];
        for (int i = 0; i < size; i++) {
          bigger[i] = items[(head + i) & (items.length - 1)];
        }
        items = bigger;
        head = 0;
      }
      items[(head + size++) & (items.length - 1)] = v;
    }

    long poll() {
      long v = items[head];
      head = (head + 1) & (items.length - 1);
      size--;
      return v;
    }

    int size() {
      return size;
    }

    boolean isEmpty() {
      return size == 0;
    }

    void clear() {
      size = 0;
      head = 0;
    }
  }

  /** A device with one port whose state the test flips. */
  static final class Device implements VerbsContext {
    final String name;
    final List<Qp> qps = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Cq> cqs = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * When set, the "NIC" completes every WR successfully as it is posted (on the poster's thread).
     */
    volatile boolean autoComplete;

    /** When cleared, QPs keep no record of posted WRs (allocation measurements). */
    volatile boolean recordPosted = true;

    PortState portState = PortState.ACTIVE;
    volatile AsyncEventHandler events;
    volatile boolean closed;

    Device(String name) {
      this.name = name;
    }

    @Override
    public String deviceName() {
      return name;
    }

    @Override
    public String providerName() {
      return "fake";
    }

    @Override
    public int portCount() {
      return 1;
    }

    @Override
    public PortAttributes queryPort(int port) {
      if (port != 1) {
        throw new VerbsException(VerbsError.INVALID_ARGUMENT, "no port " + port);
      }
      return new PortAttributes(
          1, portState, 4096, 7000, new Gid(0, 0xffff7f000001L), 0, LinkLayer.ETHERNET);
    }

    @Override
    public ProtectionDomain allocPd() {
      return new Pd(this);
    }

    @Override
    public CompletionQueue createCq(int capacity) {
      Cq cq = new Cq(capacity);
      cqs.add(cq);
      return cq;
    }

    @Override
    public void setAsyncEventHandler(AsyncEventHandler handler) {
      this.events = handler;
    }

    @Override
    public void close() {
      closed = true;
    }

    /**
     * @return QPs not yet destroyed
     */
    List<Qp> liveQps() {
      List<Qp> live = new ArrayList<>();
      for (Qp qp : qps) {
        if (!qp.closed) {
          live.add(qp);
        }
      }
      return live;
    }

    /** Completes every outstanding WR of every live QP with {@code status}; @return how many */
    int completeAll(WcStatus status) {
      int n = 0;
      for (Qp qp : liveQps()) {
        n += qp.complete(Integer.MAX_VALUE, status);
      }
      return n;
    }

    Qp qp(int qpNum) {
      for (Qp qp : qps) {
        if (qp.qpNum == qpNum) {
          return qp;
        }
      }
      return null;
    }
  }

  /** A PD that creates fake QPs. */
  static final class Pd implements ProtectionDomain {
    private final Device device;

    Pd(Device device) {
      this.device = device;
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags) {
      throw new UnsupportedOperationException("not needed by owner unit tests");
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int accessFlags) {
      throw new UnsupportedOperationException("not needed by owner unit tests");
    }

    @Override
    public QueuePair createQp(QpInitAttributes attributes) {
      Qp qp = new Qp((Cq) attributes.sendCq(), attributes.maxSendWr());
      qp.autoComplete = device.autoComplete;
      qp.recordPosted = device.recordPosted;
      device.qps.add(qp);
      return qp;
    }

    @Override
    public void close() {}
  }

  /**
   * A CQ that checks the credit invariant: signaled WRs posted and not yet polled never exceed the
   * capacity (hardware would overflow).
   */
  static final class Cq implements CompletionQueue {
    final int capacity;
    final LongRing wrIds = new LongRing();
    final LongRing statusAndQp = new LongRing();

    /** When set, the next poll reports an overflow, as a CQ in error does. */
    boolean inError;

    int unpolled;
    int maxUnpolled;
    boolean overflowed;
    int notifyRequests;

    /** When set, requests for notification fail as a CQ in error does. */
    boolean armFails;

    boolean armed;
    CompletionNotificationHandler handler;
    volatile boolean closed;

    Cq(int capacity) {
      this.capacity = capacity;
    }

    void posted() {
      unpolled++;
      maxUnpolled = Math.max(maxUnpolled, unpolled);
      if (unpolled > capacity) {
        overflowed = true;
      }
    }

    void push(long wrId, WcStatus status, int qpNum) {
      wrIds.add(wrId);
      statusAndQp.add(((long) status.code() << 32) | (qpNum & 0xffffffffL));
      if (armed && handler != null) {
        armed = false;
        handler.onCompletion(this);
      }
    }

    @Override
    public int capacity() {
      return capacity;
    }

    @Override
    public int poll(WorkCompletionBatch out) {
      if (inError) {
        return PostStatus.CQ_ERROR;
      }
      int n = 0;
      while (n < out.capacity() && !wrIds.isEmpty()) {
        long sq = statusAndQp.poll();
        out.put(n++, wrIds.poll(), (int) (sq >>> 32), 0, 0, (int) sq, 0, 0);
        unpolled--;
      }
      out.setCount(n);
      return n;
    }

    @Override
    public void setNotificationHandler(CompletionNotificationHandler handler) {
      this.handler = handler;
    }

    @Override
    public int requestNotify() {
      notifyRequests++;
      if (armFails) {
        return PostStatus.CQ_ERROR;
      }
      armed = true;
      return PostStatus.OK;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** An RC QP with a real state machine; the test completes its WRs. */
  static final class Qp implements QueuePair {
    final int qpNum = QP_NUMS.incrementAndGet();
    final Cq cq;
    final int maxSendWr;
    final LongRing outstanding = new LongRing();
    final List<long[]> posted = new ArrayList<>();
    boolean recordPosted = true;
    QpState state = QpState.RESET;
    QpPeer peer;
    RtsAttributes rts;
    int pathMtu;
    boolean flushOnError = true;
    boolean autoComplete;
    boolean closed;
    int maxOutstanding;

    Qp(Cq cq, int maxSendWr) {
      this.cq = cq;
      this.maxSendWr = maxSendWr;
    }

    @Override
    public int qpNum() {
      return qpNum;
    }

    @Override
    public QpState state() {
      return state;
    }

    @Override
    public void toInit(int port, int accessFlags) {
      expect(QpState.RESET);
      state = QpState.INIT;
    }

    @Override
    public void toRtr(QpPeer peer, int pathMtu) {
      expect(QpState.INIT);
      this.peer = peer;
      this.pathMtu = pathMtu;
      state = QpState.RTR;
    }

    @Override
    public void toRts(RtsAttributes attributes) {
      expect(QpState.RTR);
      this.rts = attributes;
      state = QpState.RTS;
    }

    private void expect(QpState s) {
      if (closed || state != s) {
        throw new VerbsException(
            VerbsError.INVALID_STATE, "QP " + qpNum + " in " + state + ", expected " + s);
      }
    }

    @Override
    public void toError() {
      if (closed) {
        throw new VerbsException(VerbsError.INVALID_STATE, "QP " + qpNum + " destroyed");
      }
      state = QpState.ERR;
      if (flushOnError) {
        complete(Integer.MAX_VALUE, WcStatus.WR_FLUSH_ERR);
      }
    }

    @Override
    public void toReset() {
      state = QpState.RESET;
      outstanding.clear();
    }

    @Override
    public int postSend(WorkRequestBatch batch) {
      if (closed || state != QpState.RTS) {
        batch.setBadIndex(0);
        return PostStatus.INVALID_STATE;
      }
      for (int i = 0; i < batch.size(); i++) {
        if (outstanding.size() >= maxSendWr) {
          batch.setBadIndex(i);
          return PostStatus.QUEUE_FULL;
        }
        outstanding.add(batch.wrId(i));
        if (recordPosted) {
          posted.add(new long[] {batch.wrId(i), batch.opcode(i), batch.length(i), batch.flags(i)});
        }
        maxOutstanding = Math.max(maxOutstanding, outstanding.size());
        cq.posted();
      }
      batch.setBadIndex(-1);
      if (autoComplete) {
        complete(Integer.MAX_VALUE, WcStatus.SUCCESS);
      }
      return PostStatus.OK;
    }

    @Override
    public int postRecv(WorkRequestBatch batch) {
      return PostStatus.INVALID_STATE;
    }

    /**
     * The NIC completes the oldest {@code n} outstanding WRs with {@code status}; @return how many
     */
    int complete(int n, WcStatus status) {
      int done = 0;
      while (done < n && !outstanding.isEmpty()) {
        cq.push(outstanding.poll(), status, qpNum);
        done++;
      }
      return done;
    }

    @Override
    public void close() {
      closed = true;
      cq.unpolled -= outstanding.size();
      outstanding.clear();
    }
  }
}
