package io.vte.verbs.soft.impl;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Who drives a {@link Requester}, and when. Its state is guarded by one lock: the NIC thread holds
 * it while it works on the requester; a posting thread may take it with {@code tryLock} to write
 * new requests itself when the wire is idle ({@link #post()}), saving the NIC a wake-up; the
 * consumer of the send CQ takes it with {@code tryLock} too, to read the responses itself when it
 * progresses the CQ ({@link #readAsPoller()}). Completions come from the NIC thread and from that
 * consumer, never from a poster. Nobody waits: a {@code tryLock} that fails leaves the work to the
 * holder or to the NIC.
 */
final class RequesterAccess {

  /**
   * A CQ consumer that has not read the responses for this long stopped polling without arming: the
   * NIC thread takes the reading back at its next timer check.
   */
  static final long POLLER_QUIET_NANOS = 20_000_000;

  private final Requester requester;
  private final SoftQp qp;
  private final ReentrantLock lock = new ReentrantLock();

  /**
   * The send CQ's consumer took the reading of the connection and has not handed it back yet
   * (written and read by the consumer).
   */
  private volatile boolean pollerReads;

  /** When the CQ's consumer last read the requester's responses (under the lock). */
  private long pollerReadAt;

  /**
   * Made once: the hand-back of the reading to the NIC thread, run at every arming that needs it.
   */
  private final Runnable readOnNic = this::takeReadingBack;

  RequesterAccess(Requester requester, SoftQp qp) {
    this.requester = requester;
    this.qp = qp;
  }

  /** Takes the lock (NIC thread). */
  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /**
   * Poster thread, after new WRs entered the send queue: sends them right away when the connection
   * is up and idle; otherwise (or for whatever is left) hands the QP to the NIC. Never blocks.
   */
  void post() {
    boolean handOff = true;
    // re-entered from a completion handler on the NIC thread: leave it to the NIC loop
    if (!lock.isHeldByCurrentThread() && lock.tryLock()) {
      try {
        handOff = requester.sendAsPoster();
      } finally {
        lock.unlock();
      }
    }
    if (handOff) {
      qp.device.nic().schedule(qp);
    }
  }

  /**
   * The send CQ's consumer progresses a ring it has not armed ({@link SoftCq#progress()}): it reads
   * the QP's responses itself while work is outstanding, so an ACK completes without waking the NIC
   * thread, and the NIC's selector stops watching the socket for input until {@link
   * #handBackReads()}, or until a timer check finds the consumer quiet for {@link
   * #POLLER_QUIET_NANOS} (consumer thread). Never blocks: when the NIC thread or a poster holds the
   * lock, this poll leaves it be.
   *
   * @return whether it read the connection
   */
  boolean readAsPoller() {
    // an idle sender costs two volatile reads, not a lock: a CQ may have many
    if (requester.idle() || lock.isHeldByCurrentThread() || !lock.tryLock()) {
      return false;
    }
    try {
      Connection c = requester.connection();
      if (c == null || !c.isConnected()) {
        return false;
      }
      pollerReadAt = System.nanoTime();
      if (!c.isReadByPoller()) {
        c.setReadByPoller(true);
        pollerReads = true;
      }
      c.readWaiting();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The send CQ was armed: its consumer stops polling, so the NIC thread takes the reading back
   * (consumer thread; the NIC reads what arrived meanwhile and the completions wake the consumer).
   */
  void handBackReads() {
    if (pollerReads) {
      pollerReads = false;
      qp.device.nic().execute(readOnNic);
    }
  }

  /**
   * @return true when the consumer has not read for {@link #POLLER_QUIET_NANOS} (under the lock)
   */
  boolean pollerQuiet(long now) {
    return now - pollerReadAt >= POLLER_QUIET_NANOS;
  }

  /** NIC thread: watches the socket for input again and reads what waits. */
  private void takeReadingBack() {
    lock.lock();
    try {
      takeReadingBackLocked();
    } finally {
      lock.unlock();
    }
  }

  /** NIC thread, under the lock: the same. */
  void takeReadingBackLocked() {
    Connection c = requester.connection();
    if (c != null && c.isReadByPoller()) {
      c.setReadByPoller(false);
      c.readWaiting();
    }
  }
}
