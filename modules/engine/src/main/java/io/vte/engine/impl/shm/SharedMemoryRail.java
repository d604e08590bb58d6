package io.vte.engine.impl.shm;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.RailStatus;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Carrier;
import io.vte.engine.impl.rail.Route;
import io.vte.engine.impl.rail.Routes;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.rail.Transport;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.SharedMemoryDesc;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The same-host rail: slices whose remote buffer is a same-host peer's shared memory are copied by
 * this engine's copier threads straight between the local buffer and the peer's mapped file, one
 * copy and no socket. A buffer is a {@link Target}: it is offered only when the peer's descriptor
 * describes it as shared memory of this host (boot id) and this user, mapped at its first slice
 * ({@link PeerMapping#attach}, which proves the peer shares the file), and held down for the rail
 * hold-down after a failure (the slice then moves to the network rails). A {@link Transport} like
 * the verbs rails: a target is the {@link Routes} and the {@link Route} of its buffer, and the
 * copier threads are its {@link Carrier}. Copies run on the copier threads, never on an owner's
 * event loop; a slice's rkey on this rail is its target's id. Thread-safe.
 */
public final class SharedMemoryRail implements Transport, Carrier {

  /** The device name both ends of a shared-memory rail show. */
  private static final String DEVICE = RailStatus.SAME_HOST_DEVICE;

  private static final Slice STOP = new Slice(null, -1, WrOpcode.RDMA_WRITE, 0, 0, 0);

  private final HostIdentity self;
  private final long holdDownNanos;
  private final int threadCount;
  private final String threadPrefix;
  private final Map<String, Target> targets = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<Slice> queue = new LinkedBlockingQueue<>();
  private final AtomicLong copied = new AtomicLong();
  private final Queue<PeerMapping> retired = new ConcurrentLinkedQueue<>();
  private volatile Target[] byId = new Target[16];
  private int nextId;
  private final Promise<Void> stopped = Promise.promise();
  private final AtomicInteger running = new AtomicInteger();
  private List<Thread> threads;
  private volatile boolean closed;

  /** The injected post-copy corruption of this rail's copies, or null. */
  private volatile PayloadFaults landingFaults;

  /**
   * @param self this process
   * @param holdDownNanos how long a buffer whose copy failed is left to the network rails
   * @param threadCount copier threads (started at the first slice)
   * @param threadPrefix name prefix of the copier threads
   */
  public SharedMemoryRail(
      HostIdentity self, long holdDownNanos, int threadCount, String threadPrefix) {
    this.self = self;
    this.holdDownNanos = holdDownNanos;
    this.threadCount = threadCount;
    this.threadPrefix = threadPrefix;
  }

  /**
   * @param segment a peer segment
   * @param bufferIndex one of its buffers
   * @return the buffer as a target of this rail, or null when the rail does not apply to it (not
   *     shared memory, another host or another user, as the descriptor says)
   */
  @Override
  public Target routesTo(PeerSegment segment, int bufferIndex) {
    BufferDesc buffer = segment.descriptor().getBuffers(bufferIndex);
    if (closed || !buffer.hasShm()) {
      return null;
    }
    SharedMemoryDesc shm = buffer.getShm();
    if (!self.isKnown()
        || !self.bootId().equals(shm.getBootId())
        || Integer.toUnsignedLong(shm.getUid()) != self.uid()) {
      return null;
    }
    Target t = targets.get(shm.getPath());
    if (t != null && t.matches(buffer)) {
      return t;
    }
    return register(segment.serverName(), buffer);
  }

  private synchronized Target register(String server, BufferDesc buffer) {
    Target existing = targets.get(buffer.getShm().getPath());
    if (existing != null && existing.matches(buffer)) {
      return existing;
    }
    Target t = new Target(nextId++, server, buffer);
    Target[] table = byId;
    if (t.id >= table.length) {
      table = java.util.Arrays.copyOf(table, table.length * 2);
    }
    table[t.id] = t;
    byId = table;
    targets.put(buffer.getShm().getPath(), t);
    return t;
  }

  /**
   * Queues a slice given a target of this rail ({@link Target#assign}) for a copier thread; the
   * copiers wait on their queue, so nothing else wakes them.
   *
   * @param slice the slice
   */
  @Override
  public void offer(Slice slice) {
    startThreads();
    if (closed) {
      slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, null);
      return;
    }
    queue.add(slice);
    if (closed && queue.remove(slice)) {
      // queued behind the copier threads' stop: no thread takes it
      slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, null);
    }
  }

  /**
   * @return bytes copied by this rail so far
   */
  public long copiedBytes() {
    return copied.get();
  }

  /**
   * @return one status per peer buffer this rail was offered, like the network rails' statuses
   */
  public List<RailStatus> snapshot() {
    List<RailStatus> out = new ArrayList<>();
    long now = System.nanoTime();
    for (Target t : targets.values()) {
      out.add(
          new RailStatus(
              DEVICE,
              t.server,
              DEVICE + ":" + t.path(),
              true,
              !t.usable(now) || t.revoked != null,
              false,
              t.outstanding.get(),
              t.copied.get(),
              t.lastCause));
    }
    return out;
  }

  /**
   * Stops the copier threads: each ends after the copy it is in; the slices queued before end
   * ENGINE_CLOSED. Does not block.
   *
   * @return completes when every copier thread has ended
   */
  public Future<Void> close() {
    synchronized (this) {
      closed = true;
      if (threads != null) {
        threads.forEach(t -> queue.add(STOP));
      } else {
        stopped.tryComplete();
      }
    }
    targets.clear();
    return stopped.future().onSuccess(v -> closeMappings());
  }

  /** Closes every mapped peer file (the copier threads have ended). */
  private void closeMappings() {
    for (Target t : byId) {
      PeerMapping m = t == null ? null : t.mapping;
      if (m != null) {
        m.close();
      }
    }
    retired.forEach(PeerMapping::close);
    retired.clear();
  }

  private void startThreads() {
    if (threads != null) {
      return;
    }
    synchronized (this) {
      if (threads != null || closed) {
        return;
      }
      List<Thread> started = new ArrayList<>(threadCount);
      running.set(threadCount);
      for (int i = 0; i < threadCount; i++) {
        Thread t = new Thread(this::copyLoop, threadPrefix + i);
        t.setDaemon(true);
        started.add(t);
      }
      threads = started;
      started.forEach(Thread::start);
    }
  }

  private void copyLoop() {
    CopyCheck check = new CopyCheck(this);
    PeerMapping.KeptHold kept = new PeerMapping.KeptHold();
    CopyRun run = new CopyRun();
    try {
      while (true) {
        // no copier lock is held while this thread waits
        run.take(queue, kept::release, STOP);
        if (run.get(0) == STOP) {
          return;
        }
        try {
          copyRun(run, check, kept);
        } catch (InternalError e) {
          // A fault of a copy that HotSpot reported late, after the copy had returned: the slices
          // not reported yet end as that fault did (none may be left to wait for its deadline).
          while (run.unreported()) {
            run.reportNext(
                WcStatus.GENERAL_ERR.code(),
                new VteException(
                    ErrorCode.TRANSFER_FAILED,
                    "a same-host copy faulted (the file was truncated under the rail): " + e));
          }
        } finally {
          run.clear();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        kept.release();
      } finally {
        if (running.decrementAndGet() == 0) {
          stopped.tryComplete();
        }
      }
    }
  }

  /** Copies a run: with one copy when none of its slices ends otherwise, else slice by slice. */
  private void copyRun(CopyRun run, CopyCheck check, PeerMapping.KeptHold kept) {
    int n = run.count();
    for (int i = 0; n > 1 && i < n; i++) {
      if (run.get(i).callback().isAbandoned()) {
        for (int j = 0; j < n; j++) {
          Slice s = run.get(j);
          copy(s, s.length(), 1, run, check, kept);
        }
        return;
      }
    }
    copy(run.get(0), run.bytes(), n, run, check, kept);
  }

  /**
   * Copies {@code bytes} from {@code first} on, the extent of {@code count} slices of {@code run}
   * starting at {@code first} (count 1: {@code first} alone), and reports each of them.
   */
  private void copy(
      Slice first, int bytes, int count, CopyRun run, CopyCheck check, PeerMapping.KeptHold kept) {
    Target target = byId[first.rkey()];
    int status;
    VteException cause = null;
    if (closed) {
      status = SliceStatus.ENGINE_CLOSED;
    } else if (count == 1 && first.callback().isAbandoned()) {
      status = SliceStatus.ABANDONED;
    } else if (target.revoked != null) {
      status = WcStatus.REM_ACCESS_ERR.code();
      cause = target.revoked;
    } else {
      try {
        PeerMapping mapping = target.mapping();
        PeerMapping.Outcome outcome =
            mapping.copy(
                first.opcode() == WrOpcode.RDMA_READ,
                first.localAddress(),
                first.remoteAddress(),
                bytes,
                check.checking(first.checksIntegrity()),
                kept);
        if (outcome == PeerMapping.Outcome.OK) {
          copied.addAndGet(bytes);
          target.copied.addAndGet(bytes);
          status = SliceStatus.OK;
        } else if (outcome == PeerMapping.Outcome.CORRUPTED) {
          status = WcStatus.INTEGRITY_ERR.code(); // nothing held down: the retry may take this rail
        } else if (outcome == PeerMapping.Outcome.REVOKED) {
          cause =
              new VteException(
                  ErrorCode.REMOTE_ACCESS_DENIED, "the peer revoked " + mapping.path());
          target.revoke(cause);
          status = WcStatus.REM_ACCESS_ERR.code();
        } else {
          cause = failure(outcome, mapping);
          target.holdDown(holdDownNanos, cause);
          status = WcStatus.GENERAL_ERR.code();
        }
      } catch (VteException e) {
        // the peer's buffer cannot be mapped: the network rails carry it for a while
        target.holdDown(holdDownNanos, e);
        cause = e;
        status = WcStatus.GENERAL_ERR.code();
      }
    }
    for (int i = 0; i < count; i++) {
      run.reportNext(status, cause);
    }
  }

  /**
   * Injects (null: stops) a post-copy corruption of this rail's copies: a picked copy has one bit
   * of its destination flipped after the copy, before its check (the fault injector's {@code
   * corruptLanded} on the same-host device).
   */
  public void corruptLanded(PayloadFaults faults) {
    landingFaults = faults;
  }

  /**
   * @return the post-copy corruption in force, or null
   */
  PayloadFaults landingFaults() {
    return landingFaults;
  }

  private static VteException failure(PeerMapping.Outcome outcome, PeerMapping mapping) {
    switch (outcome) {
      case OWNER_DEAD:
        return new VteException(
            ErrorCode.PEER_UNREACHABLE, "the owner of " + mapping.path() + " is gone");
      default:
        return new VteException(
            ErrorCode.TRANSFER_FAILED,
            "shared memory " + mapping.path() + " faulted (the file was truncated under the rail)");
    }
  }

  /**
   * A same-host peer's shared-memory buffer, as this rail's destination: the one route of this
   * transport to it.
   */
  public final class Target implements Routes, Route {

    private final int id;
    private final String server;
    private final BufferDesc buffer;
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong copied = new AtomicLong();
    private volatile PeerMapping mapping;
    private volatile long heldUntil = System.nanoTime();
    private volatile VteException lastCause;

    /** Set once the owner revoked the buffer: every later slice is denied at once. */
    private volatile VteException revoked;

    private Target(int id, String server, BufferDesc buffer) {
      this.id = id;
      this.server = server;
      this.buffer = buffer;
    }

    private boolean matches(BufferDesc other) {
      return buffer.getAddress() == other.getAddress()
          && buffer.getLength() == other.getLength()
          && buffer.getShm().getNonce().equals(other.getShm().getNonce());
    }

    private String path() {
      return buffer.getShm().getPath();
    }

    /**
     * {@inheritDoc}
     *
     * <p>This target, unless it is {@code avoid} or a failure holds it down now.
     */
    @Override
    public Route select(int bufferIndex, Route avoid, int length) {
      if (avoid == this || closed || !usable(System.nanoTime())) {
        return null;
      }
      acquire(length);
      return this;
    }

    private boolean usable(long now) {
      return now - heldUntil >= 0;
    }

    @Override
    public Carrier carrier() {
      return SharedMemoryRail.this;
    }

    /** Gives a slice this target, its key the target's id. */
    @Override
    public void assign(Slice slice, LocalBuffer local, int bufferIndex) {
      slice.assign(this, null, 0, id);
    }

    @Override
    public void acquire(int length) {
      outstanding.addAndGet(length);
    }

    @Override
    public void release(int length, boolean moved) {
      outstanding.addAndGet(-length);
    }

    /** Nothing to learn: a copy that succeeded holds nothing down. */
    @Override
    public void onSuccess() {}

    /** The copier held the target down already; a same-host failure implicates no peer device. */
    @Override
    public boolean onFailure(int status, VteException cause) {
      return false;
    }

    /** A copy fails with the transfer's own typed cause (revoked, owner dead, truncated). */
    @Override
    public boolean typedFailures() {
      return true;
    }

    @Override
    public String toString() {
      return DEVICE + "->" + server + ":" + path();
    }

    private void revoke(VteException cause) {
      revoked = cause;
      holdDown(0, cause);
    }

    private void holdDown(long nanos, VteException cause) {
      lastCause = cause;
      heldUntil = System.nanoTime() + nanos;
      PeerMapping old = mapping;
      mapping = null;
      if (old != null) {
        // another copier thread may still copy through it: closed with the rail
        retired.add(old);
      }
    }

    /** The mapping, attached at the first use after a hold-down (on a copier thread). */
    private PeerMapping mapping() {
      PeerMapping m = mapping;
      if (m == null) {
        synchronized (this) {
          m = mapping;
          if (m == null) {
            m = PeerMapping.attach(buffer.getShm(), buffer.getAddress(), buffer.getLength(), self);
            mapping = m;
          }
        }
      }
      return m;
    }
  }
}
