package io.vte.verbs.soft.impl;

import io.vte.verbs.SpinBudget;
import io.vte.verbs.soft.impl.link.LinkProbe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The soft HCA's engine: one thread per device running a selector loop. It accepts connections,
 * moves frames, runs scheduled QPs and commands handed over by other threads (non-blocking hand-off
 * with one wake-up only when it sleeps), checks QP timers, polls the link under the device's
 * address every {@link #LINK_POLL_NANOS}, and delivers async events outside any lock. With a spin
 * window it busy-polls its sockets for that long after it served a peer's small request, as a NIC's
 * hardware is always there for the next one, while it holds a token of its NIC budget.
 */
final class Nic implements Runnable {

  private static final long MAX_TIMER_GAP_NANOS = 100_000_000L;

  /**
   * The largest peer request after which the thread busy-polls. Waking a sleeping thread costs
   * about what moving 16-32 KiB does, so polling pays for small requests; after larger ones it only
   * takes the core the sender's copies need and answers in smaller groups (on 2 cores, 8 WRITEs of
   * 64 KiB in flight ran 10-30% slower with a polling NIC, 8 of 4 KiB 40-50% faster).
   */
  private static final long SPIN_AFTER_REQUEST_BYTES = 16 * 1024;

  /**
   * How often the link under the device's address is read (when it has one, see {@link
   * LinkProbe#watches()}).
   */
  static final long LINK_POLL_NANOS = 50_000_000L;

  private final SoftDevice device;
  private final Selector selector;
  private final ServerSocketChannel server;
  private final int socketBufferBytes;
  private final long spinNanos;
  private final Thread thread;
  private final HelloAcceptor acceptor;
  private final ConcurrentLinkedQueue<Object> inbox = new ConcurrentLinkedQueue<>();

  // Made once: a method reference passed to select() would allocate on every turn of the loop.
  private final Consumer<SelectionKey> keyHandler = this::onKey;
  private final ArrayList<SoftQp> qps = new ArrayList<>();
  private static final long LATE_TIMER_TOLERANCE_NANOS = 10_000_000L;

  /** A peer's request was served since the loop last looked (NIC thread). */
  private boolean served;

  /**
   * The NIC threads of the provider that may busy-poll at once: a thread that would poll with none
   * free sleeps in select as without a spin window.
   */
  private final SpinBudget spinners;

  /** This thread holds a token of {@link #spinners} (NIC thread). */
  private boolean spinning;

  private volatile boolean sleeping;

  /**
   * The loop failed: the thread only flushes until the device closes ({@link #serveDead()}). Not
   * the device's own dead flag, which a kill also sets while the loop runs on.
   */
  private volatile boolean loopFailed;

  private volatile boolean stopping;

  /** Opens the hold of {@link #hold}, null while the thread is not held (under this). */
  private CountDownLatch hold;

  /** What {@link #hold} returned for the hold in force, null while none is (under this). */
  private CompletableFuture<Void> holding;

  private final java.util.concurrent.atomic.AtomicLong nextTimer =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile long plannedWake;

  /** Connections of this device open now (any role), for diagnostics. */
  private final java.util.concurrent.atomic.AtomicInteger openConnections =
      new java.util.concurrent.atomic.AtomicInteger();

  Nic(SoftDevice device, InetSocketAddress bind, int socketBufferBytes, NicSpin spin)
      throws IOException {
    this.device = device;
    this.socketBufferBytes = socketBufferBytes;
    this.spinNanos = spin.nanos();
    this.spinners = spin.budget();
    this.acceptor = new HelloAcceptor(device);
    this.selector = Selector.open();
    ServerSocketChannel s = null;
    try {
      s = ServerSocketChannel.open();
      s.bind(bind, 256);
      s.configureBlocking(false);
      s.register(selector, SelectionKey.OP_ACCEPT, this);
    } catch (IOException | RuntimeException e) {
      if (s != null) {
        s.close();
      }
      selector.close();
      throw e;
    }
    this.server = s;
    this.thread = new Thread(this, "vte-soft-nic-" + device.deviceName());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  SoftDevice device() {
    return device;
  }

  Selector selector() {
    return selector;
  }

  /** Counts a connection opened ({@code +1}) or closed ({@code -1}). */
  void connectionsChanged(int delta) {
    openConnections.addAndGet(delta);
  }

  /**
   * @return connections of this device open now
   */
  int openConnections() {
    return openConnections.get();
  }

  int socketBufferBytes() {
    return socketBufferBytes;
  }

  /**
   * @return the TCP port the device listens on (its LID)
   */
  int listenPort() {
    return server.socket().getLocalPort();
  }

  boolean inNicThread() {
    return Thread.currentThread() == thread;
  }

  /** Has the NIC service a QP soon (any thread; at most one pending entry per QP). */
  void schedule(SoftQp qp) {
    if (qp.scheduled.compareAndSet(false, true)) {
      inbox.offer(qp);
      wake();
    }
  }

  /** Runs a command on the NIC thread (any thread). */
  void execute(Runnable command) {
    inbox.offer(command);
    wake();
  }

  /** Wakes the NIC if it sleeps in select, or parks after its loop failed (any thread). */
  void wake() {
    if (sleeping) {
      selector.wakeup();
    } else if (loopFailed) {
      LockSupport.unpark(thread);
    }
  }

  /**
   * Asks for a timer check no later than {@code when} (any thread). From another thread the NIC is
   * woken only when it would otherwise check much too late.
   */
  void wantTimerAt(long when) {
    long cur;
    while (when - (cur = nextTimer.get()) < 0) {
      if (nextTimer.compareAndSet(cur, when)) {
        if (!inNicThread() && when - plannedWake < -LATE_TIMER_TOLERANCE_NANOS) {
          wake();
        }
        return;
      }
    }
  }

  /**
   * Holds the thread (the fault injector's stalled NIC): it runs the commands queued before, then
   * does nothing, reading no socket, until {@link #releaseHold()} or {@link #stop()}; what peers
   * send meanwhile waits in the sockets. Never blocks (any thread, an event loop too): holding a
   * thread already held or being held returns the same stage.
   *
   * @return completes once the thread is held
   */
  synchronized CompletableFuture<Void> hold() {
    if (holding != null) {
      return holding;
    }
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<Void> held = new CompletableFuture<>();
    hold = go;
    holding = held;
    execute(
        () -> {
          held.complete(null);
          try {
            while (!stopping && !go.await(MAX_TIMER_GAP_NANOS, TimeUnit.NANOSECONDS)) {
              // held: the sockets fill up
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return held;
  }

  /** Lets a thread held by {@link #hold} go on (any thread); nothing when none is held. */
  synchronized void releaseHold() {
    CountDownLatch go = hold;
    hold = null;
    holding = null;
    if (go != null) {
      go.countDown();
    }
  }

  /** Stops the thread and waits for it to release every socket (control plane). */
  void stop() {
    stopping = true;
    selector.wakeup();
    LockSupport.unpark(thread);
    if (!inNicThread()) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void run() {
    nextTimer.set(System.nanoTime() + MAX_TIMER_GAP_NANOS);
    boolean watchLink = device.watchesLink();
    long nextLinkPoll = System.nanoTime() + LINK_POLL_NANOS;
    long lastServed = System.nanoTime() - spinNanos;
    try {
      while (!stopping) {
        drainInbox();
        device.events().deliver();
        long now = System.nanoTime();
        if (served) {
          served = false;
          lastServed = now;
        }
        if (watchLink && now - nextLinkPoll >= 0) {
          device.pollLink(); // what it raises is delivered on the next turn, before any sleep
          nextLinkPoll = now + LINK_POLL_NANOS;
        }
        if (now - nextTimer.get() >= 0) {
          scanTimers(now);
        }
        if (spinNanos > 0
            && now - lastServed < spinNanos
            && (spinning || (spinning = spinners.tryAcquire()))) {
          // busy-poll for a while after a peer's request: its next one is read without a wake-up
          if (selector.selectNow(keyHandler) == 0) {
            Thread.yield();
          }
          continue;
        }
        stopSpinning();
        long wakeAt = nextTimer.get();
        if (watchLink && nextLinkPoll - wakeAt < 0) {
          wakeAt = nextLinkPoll;
        }
        plannedWake = wakeAt;
        sleeping = true;
        if (!inbox.isEmpty() || device.events().hasPending() || stopping) {
          sleeping = false;
          selector.selectNow(keyHandler);
          continue;
        }
        long waitMillis = Math.max(1, (wakeAt - now + 999_999) / 1_000_000);
        selector.select(keyHandler, waitMillis);
        sleeping = false;
      }
    } catch (IOException | RuntimeException | Error e) {
      device.log().nicFailure(e);
      serveDead();
    } finally {
      stopSpinning();
      shutdown();
    }
  }

  /**
   * After an unexpected failure of the loop (NIC thread): the device is dead, and the thread stays
   * until the device closes only to flush, so that work outstanding at the failure, and work posted
   * on the dead device later, completes with an error instead of waiting forever. It leaves the
   * selector alone (it may be what failed) and parks between commands.
   */
  private void serveDead() {
    stopSpinning();
    loopFailed = true;
    device.die();
    while (!stopping) {
      drainInbox();
      device.events().deliver();
      if (inbox.isEmpty() && !device.events().hasPending() && !stopping) {
        LockSupport.parkNanos(this, MAX_TIMER_GAP_NANOS);
      }
    }
  }

  /**
   * A peer's request (WRITE, READ, SEND) was served on this NIC thread: after one of at most {@link
   * #SPIN_AFTER_REQUEST_BYTES} the thread busy-polls for the spin window (NIC thread).
   *
   * @param bytes the request's length
   */
  void servedPeer(long bytes) {
    if (bytes <= SPIN_AFTER_REQUEST_BYTES) {
      served = true;
    }
  }

  private void stopSpinning() {
    if (spinning) {
      spinning = false;
      spinners.release();
    }
  }

  /**
   * @return how many items it handled
   */
  private int drainInbox() {
    long now = System.nanoTime();
    Object o;
    int handled = 0;
    while (handled < 4096 && (o = inbox.poll()) != null) {
      handled++;
      try {
        if (o instanceof SoftQp) {
          SoftQp qp = (SoftQp) o;
          qp.scheduled.set(false);
          serviceQp(qp, now);
        } else {
          ((Runnable) o).run();
        }
      } catch (RuntimeException e) {
        device.log().nicFailure(e); // a bug in one QP's work must not stop the device
      }
    }
    return handled;
  }

  private void serviceQp(SoftQp qp, long now) {
    qp.service(now);
    if (qp.isClosed()) {
      qps.remove(qp);
    } else if (!qps.contains(qp)) {
      qps.add(qp);
    }
  }

  private void scanTimers(long now) {
    nextTimer.set(now + MAX_TIMER_GAP_NANOS);
    for (int i = 0; i < qps.size(); i++) {
      try {
        long t = qps.get(i).requester.onTimer(now);
        if (t != Long.MAX_VALUE) {
          wantTimerAt(t);
        }
      } catch (RuntimeException e) {
        device.log().nicFailure(e);
      }
    }
  }

  private void onKey(SelectionKey key) {
    Object a = key.attachment();
    if (a == this) {
      acceptAll();
    } else {
      ((Connection) a).onSelected();
    }
  }

  private void acceptAll() {
    try {
      SocketChannel ch;
      while ((ch = server.accept()) != null) {
        if (!device.acceptsTraffic()) {
          ch.close();
          continue;
        }
        try {
          Connection.accepted(this, ch, acceptor);
        } catch (IOException | RuntimeException e) {
          ch.close();
          device.log().connectionFailure(null, e);
        }
      }
    } catch (IOException e) {
      device.log().connectionFailure(null, e);
    }
  }

  /** Closes every connection of the device: port down or device death (NIC thread). */
  void closeAllConnections() {
    for (SelectionKey k : selector.keys().toArray(new SelectionKey[0])) {
      if (k.attachment() instanceof Connection) {
        ((Connection) k.attachment()).closeFromNic();
      }
    }
  }

  /** Runs every known QP once, e.g. after the port came back (NIC thread). */
  void serviceAll() {
    long now = System.nanoTime();
    for (SoftQp qp : qps.toArray(new SoftQp[0])) {
      serviceQp(qp, now);
    }
  }

  private void shutdown() {
    drainInbox();
    device.events().deliver();
    closeAllConnections();
    for (SoftQp qp : qps) {
      qp.sq.free();
    }
    qps.clear();
    try {
      server.close();
      selector.close();
    } catch (IOException e) {
      device.log().nicFailure(e);
    }
  }
}
