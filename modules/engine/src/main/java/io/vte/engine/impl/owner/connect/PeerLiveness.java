package io.vte.engine.impl.owner.connect;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * What one engine knows of its peers' processes, shared by every owner of every local device: which
 * peer servers answered a handshake (alive), which are gone (their handshake service refused a
 * probe or a handshake after they had been alive), and the probes in flight, at most one per peer
 * server and one per {@code probeInterval}. A peer declared gone is announced once to the listeners
 * (each local device's owners then retire their endpoints to it); it is alive again when a
 * handshake with it succeeds (a new incarnation). Thread-safe: owners of several event loops use
 * it.
 */
public final class PeerLiveness {

  /** One peer server's state; guarded by itself. */
  private static final class Peer {
    boolean seenAlive;
    boolean gone;
    boolean probing;
    long nextProbeNanos;
  }

  private final long probeIntervalNanos;
  private final Map<String, Peer> peers = new ConcurrentHashMap<>();
  private final List<BiConsumer<String, VteException>> listeners = new CopyOnWriteArrayList<>();

  /**
   * @param probeIntervalNanos the least time between two probes of the same peer server
   */
  public PeerLiveness(long probeIntervalNanos) {
    this.probeIntervalNanos = probeIntervalNanos;
  }

  private Peer peer(String server) {
    return peers.computeIfAbsent(server, s -> new Peer());
  }

  /**
   * Registers a listener told once per peer declared gone, with the peer server and the cause its
   * requests fail with; it runs on the thread that declared it and must only hand work on.
   *
   * @return removes the listener
   */
  public Runnable onGone(BiConsumer<String, VteException> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** A handshake with {@code server} succeeded: it is alive (again). */
  public void alive(String server) {
    Peer p = peer(server);
    synchronized (p) {
      p.seenAlive = true;
      p.gone = false;
    }
  }

  /**
   * @return true once {@code server} was declared gone and until a handshake with it succeeds
   */
  public boolean isGone(String server) {
    Peer p = peers.get(server);
    if (p == null) {
      return false;
    }
    synchronized (p) {
      return p.gone;
    }
  }

  /**
   * The handshake service of {@code server} refused us. A peer that was alive before is now gone:
   * the listeners hear of it, once. A peer never seen alive (its engine may still be starting) is
   * not declared gone.
   *
   * @return true when the peer is gone (declared now or before)
   */
  public boolean refusedBy(String server, VteException cause) {
    Peer p = peer(server);
    synchronized (p) {
      if (p.gone) {
        return true;
      }
      if (!p.seenAlive) {
        return false;
      }
      p.gone = true;
    }
    for (BiConsumer<String, VteException> l : listeners) {
      l.accept(server, cause);
    }
    return true;
  }

  /**
   * Claims the one probe of {@code server} allowed now: none in flight and the last one at least
   * the probe interval ago.
   *
   * @return true when the caller may probe (and must call {@link #probeDone} after)
   */
  public boolean tryProbe(String server, long nowNanos) {
    Peer p = peer(server);
    synchronized (p) {
      if (p.probing || (p.nextProbeNanos != 0 && nowNanos - p.nextProbeNanos < 0)) {
        return false;
      }
      p.probing = true;
      p.nextProbeNanos = nowNanos + probeIntervalNanos;
      return true;
    }
  }

  /**
   * The probe of {@code server} claimed with {@link #tryProbe} has its answer.
   *
   * @param conclusive false when it ended without telling anything (a deadline, or a call on a
   *     pooled connection the dead peer's kernel had reset): the next probe may go at once, on a
   *     new connection, instead of a period later
   */
  public void probeDone(String server, boolean conclusive) {
    Peer p = peer(server);
    synchronized (p) {
      p.probing = false;
      if (!conclusive) {
        p.nextProbeNanos = 0;
      }
    }
  }

  /**
   * @return the cause requests to a gone peer fail with
   */
  public static VteException goneCause(String server, Throwable why) {
    return new VteException(
        ErrorCode.PEER_UNREACHABLE,
        "peer " + server + " is gone (its handshake service refused us): " + why.getMessage(),
        why);
  }

  /**
   * @param failure why a call to a peer's handshake service failed
   * @return true when the service is not there: the connection was refused (nothing listens on the
   *     peer's port), as the channel reports it (PEER_UNREACHABLE caused by a {@link
   *     ConnectException}); a deadline, a reset call or any answer is not a refusal
   */
  public static boolean isRefusal(Throwable failure) {
    if (!(failure instanceof VteException vte) || vte.code() != ErrorCode.PEER_UNREACHABLE) {
      return false;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
