package io.vte.engine.impl.notify;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vte.api.Notification;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Numbers outgoing notifications per peer and delivers incoming ones in sequence order per sender:
 * early arrivals wait for the gap to fill, at most {@code gapTimeout} and {@code maxPending}
 * arrivals (a sender's lost message must not stall it forever), after which delivery skips to the
 * oldest waiting one. Delivery runs on one context, in order. Thread-safe.
 *
 * <p>Exactly once: a sender sends a notification again (same epoch, same sequence) when it did not
 * hear the answer, so an arrival whose sequence was already delivered or is waiting is a {@link
 * Arrival#DUPLICATE}: dropped, and answered as received so the sender stops. The check is O(1) and
 * boxes nothing for the common in-order arrival; only an early arrival enters the waiting map. Per
 * sender the receiver keeps one epoch, one count and at most {@code maxPending} waiting arrivals: a
 * new epoch replaces the old one's state.
 *
 * <p>Sequences count within a sender's epoch (its incarnation). The first message a receiver sees
 * of an epoch sets where its count starts: a sender restarted on the same address starts again at 1
 * with a larger epoch and its receivers start over with it instead of refusing its first messages
 * as replays; a restarted receiver takes up a sender's count where it is instead of waiting for
 * messages it will never get. A message of an older epoch is a dead incarnation's and is refused.
 * (A sender keeps one notification in flight per peer, so the first one a receiver sees is the
 * earliest still coming.)
 */
public final class NotificationDispatcher {

  private final Context context;
  private final int maxPending;
  private final long gapTimeoutMillis;
  private final long epoch;
  private final Map<String, Inbound> inbound = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> outbound = new ConcurrentHashMap<>();
  private final LongAdder duplicates = new LongAdder();
  private volatile Handler<Notification> handler;

  /** What became of an incoming notification. */
  public enum Arrival {
    /** New: delivered, or waiting for an earlier one. */
    ACCEPTED,
    /** Already delivered or waiting (a resent frame): dropped, but answered as received. */
    DUPLICATE,
    /** Refused: a dead incarnation's late message, or a sequence below 1. */
    REFUSED
  }

  private static final class Inbound {
    long epoch = Long.MIN_VALUE;
    long expected;
    long gapTimer = -1;
    final TreeMap<Long, Notification> early = new TreeMap<>();
  }

  /**
   * @param context where the handler is called
   * @param maxPending early arrivals kept per sender
   * @param gapTimeoutMillis how long a gap may hold back later notifications, at least 1
   * @param epoch this engine's incarnation, sent with every outgoing notification (see {@link
   *     #newEpoch()})
   */
  public NotificationDispatcher(
      Context context, int maxPending, long gapTimeoutMillis, long epoch) {
    this.context = context;
    this.maxPending = maxPending;
    this.gapTimeoutMillis = Math.max(1, gapTimeoutMillis);
    this.epoch = epoch;
  }

  /**
   * @return an epoch for an engine starting now: the wall clock in microseconds, so later starts
   *     are larger
   */
  public static long newEpoch() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /**
   * @return this engine's epoch, to send with {@link #nextSequence(String)}
   */
  public long epoch() {
    return epoch;
  }

  /**
   * @param handler receives notifications; null drops them
   */
  public void handler(Handler<Notification> handler) {
    this.handler = handler;
  }

  /**
   * @param peer destination server name
   * @return the next sequence number for it, from 1
   */
  public long nextSequence(String peer) {
    return outbound.computeIfAbsent(peer, p -> new AtomicLong()).incrementAndGet();
  }

  /**
   * @param n an incoming notification
   * @param senderEpoch the sender's epoch
   * @return {@link Arrival#DUPLICATE} when its sequence was already delivered or is waiting in this
   *     epoch, {@link Arrival#REFUSED} when it is from an older epoch of its sender or numbered
   *     below 1, else {@link Arrival#ACCEPTED}
   */
  public Arrival accept(Notification n, long senderEpoch) {
    long sequence = n.sequence();
    if (sequence < 1) {
      return Arrival.REFUSED;
    }
    Inbound in = inbound.computeIfAbsent(n.from(), f -> new Inbound());
    synchronized (in) {
      if (senderEpoch < in.epoch) {
        return Arrival.REFUSED;
      }
      if (senderEpoch > in.epoch) {
        restart(in, senderEpoch, sequence);
      }
      if (sequence < in.expected) {
        duplicates.increment();
        return Arrival.DUPLICATE;
      }
      if (sequence == in.expected && in.early.isEmpty()) {
        // The common case: in order, nothing waiting.
        deliver(n);
        in.expected++;
        return Arrival.ACCEPTED;
      }
      if (in.early.putIfAbsent(sequence, n) != null) {
        duplicates.increment();
        return Arrival.DUPLICATE;
      }
      if (in.early.size() > maxPending) {
        skipGap(in);
      }
      drain(in);
      return Arrival.ACCEPTED;
    }
  }

  /**
   * @return arrivals dropped as duplicates since the engine started
   */
  public long duplicatesDropped() {
    return duplicates.sum();
  }

  /** Cancels the gap timers. */
  public void close() {
    for (Inbound in : inbound.values()) {
      synchronized (in) {
        if (in.gapTimer >= 0) {
          context.owner().cancelTimer(in.gapTimer);
          in.gapTimer = -1;
        }
      }
    }
  }

  private void drain(Inbound in) {
    while (!in.early.isEmpty() && in.early.firstKey() == in.expected) {
      deliver(in.early.pollFirstEntry().getValue());
      in.expected++;
    }
    if (in.early.isEmpty() && in.gapTimer >= 0) {
      context.owner().cancelTimer(in.gapTimer);
      in.gapTimer = -1;
    } else if (!in.early.isEmpty() && in.gapTimer < 0) {
      long waitingFor = in.expected;
      in.gapTimer =
          context
              .owner()
              .setTimer(
                  gapTimeoutMillis,
                  id -> {
                    synchronized (in) {
                      in.gapTimer = -1;
                      if (in.expected == waitingFor) {
                        skipGap(in);
                      }
                      drain(in);
                    }
                  });
    }
  }

  /**
   * A new sender epoch: what an old incarnation left waiting is dropped, counting starts at {@code
   * first}.
   */
  private void restart(Inbound in, long senderEpoch, long first) {
    if (in.gapTimer >= 0) {
      context.owner().cancelTimer(in.gapTimer);
      in.gapTimer = -1;
    }
    in.early.clear();
    in.expected = first;
    in.epoch = senderEpoch;
  }

  private static void skipGap(Inbound in) {
    if (!in.early.isEmpty() && in.early.firstKey() > in.expected) {
      in.expected = in.early.firstKey();
    }
  }

  private void deliver(Notification n) {
    context.runOnContext(
        v -> {
          Handler<Notification> h = handler;
          if (h != null) {
            h.handle(n);
          }
        });
  }
}
