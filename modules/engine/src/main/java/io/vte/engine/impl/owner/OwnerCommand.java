package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Promise;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.connect.ConnectMessages;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import java.util.function.Consumer;

/**
 * Control work another thread hands to an owner, run on the owner's event loop in queue order: a
 * closed set of records, queued apart from the slices ({@link OwnerProxy}).
 */
sealed interface OwnerCommand {

  /** Runs on the owner's thread. */
  void execute(Owner owner);

  /** Called instead of {@link #execute} when the owner is gone (closed); answers whoever waits. */
  default void abort() {}

  /** QP {@code qpNum} hit a fatal error. */
  record QpFatal(int qpNum) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onQpFatal(qpNum);
    }
  }

  /** Port {@code port} went down or came back. */
  record PortChange(int port, boolean up) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      if (up) {
        owner.onPortUp(port);
      } else {
        owner.onPortDown(port);
      }
    }
  }

  /**
   * The peer says its device {@code path} is down (a pushed device state): the endpoint to it
   * retires, so that its queued and posted slices move to another rail now (PEER_DEVICE_DOWN)
   * instead of waiting out the QP's timeout; a WRITE posted on it waits for the peer's disconnect
   * answer first.
   */
  record PeerDeviceDown(NicPath path, VteException cause) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      Endpoint ep = owner.endpoint(path.toString());
      if (ep != null) {
        owner.retire(ep, SliceStatus.PEER_DEVICE_DOWN, cause);
      }
    }
  }

  /** The device reported the owner's CQ in error. */
  record CqError() implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onCqError("is in error (device event)");
    }
  }

  /** The device died. */
  record DeviceFatal() implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onDeviceFatal();
    }
  }

  /** The answer to a probe of the peer of {@code endpoint}, or its failure ({@link PeerProbes}). */
  record ProbeAnswer(Endpoint endpoint, AsyncResult<ConnectReply> answer) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.probes().onAnswer(endpoint, answer);
    }
  }

  /**
   * The peer process behind {@code server} is gone ({@link
   * io.vte.engine.impl.owner.connect.PeerLiveness}).
   */
  record PeerGone(String server, VteException cause) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.probes().peerGone(server, cause);
    }
  }

  /** A peer's connect request; answered SHUTTING_DOWN when the owner is gone. */
  record PassiveConnect(ConnectRequest request, Promise<ConnectReply> reply, NicPath local)
      implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onPassiveConnect(request, reply);
    }

    @Override
    public void abort() {
      reply.tryComplete(
          ConnectMessages.reject(local, ConnectStatus.SHUTTING_DOWN, local + " is closed"));
    }
  }

  /** The answer (or failure) of an active handshake sent under {@code generation}. */
  record HandshakeReply(Endpoint endpoint, long generation, AsyncResult<ConnectReply> reply)
      implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.connector().onReply(endpoint, generation, reply.result(), reply.cause());
    }
  }

  /** The peer's answer to the disconnect that fences the endpoint's WRITEs, or its failure. */
  record Fenced(Endpoint endpoint, AsyncResult<ConnectReply> answer) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onFenced(endpoint, answer);
    }
  }

  /** Begin closing; completes at once when the owner is gone. */
  record BeginClose(Promise<Void> done) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.beginClose(done);
    }

    @Override
    public void abort() {
      done.tryComplete();
    }
  }

  /** A QP job's outcome coming back ({@link QpJobs}); {@code orphan} releases it if nobody will. */
  record JobDone(Runnable then, Runnable orphan) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      then.run();
    }

    @Override
    public void abort() {
      orphan.run();
    }
  }

  /** A one-off task on the owner's state (tests read and drive owner state with it). */
  record Task(Consumer<Owner> task) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      task.accept(owner);
    }
  }
}
