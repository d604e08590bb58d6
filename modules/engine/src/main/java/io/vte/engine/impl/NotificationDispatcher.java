package io.vte.engine.impl;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vte.api.Notification;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Numbers outgoing notifications per peer and delivers incoming ones in sequence order per sender:
 * early arrivals wait for the gap to fill, at most {@code gapTimeout} and {@code maxPending} arrivals
 * (a sender's lost message must not stall it forever), after which delivery skips to the oldest waiting
 * one; duplicates and replays are rejected. Delivery runs on one context, in order. Thread-safe.
 */
public final class NotificationDispatcher {

  private final Context context;
  private final int maxPending;
  private final long gapTimeoutMillis;
  private final Map<String, Inbound> inbound = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> outbound = new ConcurrentHashMap<>();
  private volatile Handler<Notification> handler;

  private static final class Inbound {
    long expected = 1;
    long gapTimer = -1;
    final TreeMap<Long, Notification> early = new TreeMap<>();
  }

  /**
   * @param context where the handler is called
   * @param maxPending early arrivals kept per sender
   * @param gapTimeoutMillis how long a gap may hold back later notifications, at least 1
   */
  public NotificationDispatcher(Context context, int maxPending, long gapTimeoutMillis) {
    this.context = context;
    this.maxPending = maxPending;
    this.gapTimeoutMillis = Math.max(1, gapTimeoutMillis);
  }

  /** @param handler receives notifications; null drops them */
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
   * @return false when it is a duplicate or replay (sequence already delivered or waiting)
   */
  public boolean accept(Notification n) {
    if (n.sequence() < 1) {
      return false;
    }
    Inbound in = inbound.computeIfAbsent(n.from(), f -> new Inbound());
    synchronized (in) {
      if (n.sequence() < in.expected || in.early.containsKey(n.sequence())) {
        return false;
      }
      in.early.put(n.sequence(), n);
      if (in.early.size() > maxPending) {
        skipGap(in);
      }
      drain(in);
      return true;
    }
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
      in.gapTimer = context.owner().setTimer(gapTimeoutMillis, id -> {
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

  private static void skipGap(Inbound in) {
    if (!in.early.isEmpty() && in.early.firstKey() > in.expected) {
      in.expected = in.early.firstKey();
    }
  }

  private void deliver(Notification n) {
    context.runOnContext(v -> {
      Handler<Notification> h = handler;
      if (h != null) {
        h.handle(n);
      }
    });
  }
}
