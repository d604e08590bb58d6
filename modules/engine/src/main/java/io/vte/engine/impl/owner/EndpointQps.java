package io.vte.engine.impl.owner;

import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The QPs of one owner's endpoints: made, connected and destroyed off the owner's thread ({@link
 * QpJobs}), attached to their endpoint and registered for their async events back on it.
 * Owner-confined.
 */
final class EndpointQps {

  private final Owner owner;
  private final OwnerConfig config;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final OwnerDirectory directory;
  private final QpJobs jobs;
  private final Map<Integer, Endpoint> endpointsByQp = new HashMap<>();

  /**
   * @param owner the owner whose QPs these are (registered under it in the directory)
   * @param config QP depth and port
   * @param pd the device's protection domain
   * @param cq the owner's CQ, both send and receive CQ of its QPs
   * @param directory the context's directory, told of each QP (for QP async events)
   * @param jobs where the verbs run
   */
  EndpointQps(
      Owner owner,
      OwnerConfig config,
      ProtectionDomain pd,
      CompletionQueue cq,
      OwnerDirectory directory,
      QpJobs jobs) {
    this.owner = owner;
    this.config = config;
    this.pd = pd;
    this.cq = cq;
    this.directory = directory;
    this.jobs = jobs;
  }

  /**
   * Gets the QPs of {@code ep} ready off the owner's thread: made and moved to INIT when it has
   * none yet, then handed to {@code connect} (null for none), which moves them to RTR and RTS. The
   * owner goes on polling meanwhile. Back on the owner's thread, QPs made are attached and
   * registered for their async events, an endpoint retired meanwhile is destroyed, and {@code done}
   * gets null or the failure; it must check that the endpoint is still the one it meant.
   */
  void prepare(Endpoint ep, Consumer<QueuePair[]> connect, Consumer<Throwable> done) {
    boolean create = !ep.hasQps();
    QueuePair[] qps = create ? new QueuePair[ep.qpCount()] : ep.qps();
    ep.qpJobStarted();
    jobs.run(
        () -> {
          if (create) {
            make(qps);
          }
          try {
            if (connect != null) {
              connect.accept(qps);
            }
          } catch (RuntimeException e) {
            return new Prepared(qps, e);
          }
          return new Prepared(qps, null);
        },
        (prepared, failure) -> {
          boolean destroy = ep.qpJobDone();
          if (create && prepared != null) {
            attach(ep, prepared.qps);
          }
          if (destroy) {
            destroy(ep);
          }
          done.accept(failure != null ? failure : prepared.failure);
        },
        // The owner is gone (closed) when the job is back: nothing will destroy an endpoint
        // retired meanwhile, so the job's QPs go here (close is idempotent: a stored endpoint's
        // QPs are destroyed again by destroyRemaining, harmlessly).
        prepared -> closeAll(prepared.qps));
  }

  /** QPs a job got ready, and the failure of their connect step, if any. */
  private record Prepared(QueuePair[] qps, RuntimeException failure) {}

  /**
   * Creates {@code qps.length} QPs in INIT into {@code qps}. Off the owner's thread.
   *
   * @throws VerbsException when the device cannot create them (none is left behind)
   */
  private void make(QueuePair[] qps) {
    try {
      for (int i = 0; i < qps.length; i++) {
        qps[i] = pd.createQp(new QpInitAttributes(cq, cq, config.maxOutstandingPerQp(), 1, 0));
        qps[i].toInit(config.port(), AccessFlags.ALL_REMOTE);
      }
    } catch (VerbsException e) {
      closeAll(qps);
      throw e;
    }
  }

  private static void closeAll(QueuePair[] qps) {
    for (QueuePair qp : qps) {
      if (qp != null) {
        qp.close();
      }
    }
  }

  /** Gives {@code ep} its QPs and registers them for their async events. */
  private void attach(Endpoint ep, QueuePair[] qps) {
    ep.attach(qps);
    for (QueuePair qp : qps) {
      endpointsByQp.put(qp.qpNum(), ep);
      directory.qpCreated(qp.qpNum(), owner);
    }
  }

  /**
   * @return the endpoint QP {@code qpNum} belongs to, or null
   */
  Endpoint endpointOf(int qpNum) {
    return endpointsByQp.get(qpNum);
  }

  /** Moves the QPs of {@code ep} to ERR: its work in flight flushes. */
  void toError(Endpoint ep) {
    for (int q = 0; q < ep.qpCount(); q++) {
      try {
        ep.qp(q).toError();
      } catch (VerbsException e) {
        // Already destroyed or in ERR: its work flushes or is accounted for at the deadline.
      }
    }
  }

  /**
   * Forgets an endpoint's QPs and destroys them off the owner's thread; while a QP job of the
   * endpoint is in flight, once it is back.
   */
  void destroy(Endpoint ep) {
    QueuePair[] qps = ep.detachQps();
    if (qps == null) {
      return;
    }
    for (QueuePair qp : qps) {
      endpointsByQp.remove(qp.qpNum(), ep);
      directory.qpDestroyed(qp.qpNum(), owner);
    }
    jobs.run(
        () -> {
          closeAll(qps);
          return null;
        },
        null,
        null);
  }

  /** Destroys the QPs of {@code ep} once the verbs executor stopped (no job of it comes back). */
  void destroyAfterStop(Endpoint ep) {
    ep.qpJobDone();
    destroy(ep);
  }
}
