package io.vte.engine.impl.owner.connect;

import io.vertx.core.Future;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointKey;
import io.vte.handshake.proto.ConnectReply;
import io.vte.verbs.QueuePair;
import java.util.function.Consumer;

/**
 * What a {@link Connector} needs from the owner it connects endpoints for: the store's room, the
 * owner's QP jobs, retiring and ending slices, the owner's ready line, and the way back to the
 * owner's thread for a handshake's answer. All of it runs on the owner's thread.
 */
public interface ConnectorHost {

  /** Makes room in a full store for one more endpoint (evicts an idle one if there is one). */
  void makeRoom();

  /**
   * @return a new endpoint under {@code key}, its QPs not made yet, used as of this cycle
   */
  Endpoint newEndpoint(EndpointKey key, int qpCount, long generation);

  /**
   * Gets the QPs of {@code ep} ready off the owner's thread: made when it has none, then moved to
   * RTS by {@code connect} (null for none); {@code done} gets null or the failure back on the
   * owner's thread and must check that the endpoint is still the one it meant.
   */
  void prepareQps(Endpoint ep, Consumer<QueuePair[]> connect, Consumer<Throwable> done);

  /** Takes an endpoint out of service; its slices end with {@code status}. */
  void retire(Endpoint ep, int status, Throwable cause);

  /** Ends every slice queued on {@code ep} with {@code status}. */
  void failPending(Endpoint ep, int status, Throwable cause);

  /** Forgets an endpoint's QPs and destroys them off the owner's thread. */
  void destroy(Endpoint ep);

  /** Puts a just-connected endpoint with queued slices in line for posting. */
  void markReadyIfPending(Endpoint ep);

  /**
   * Hands the answer of the connect request {@code ep} sent under {@code generation} back to the
   * owner's thread, to {@link Connector#onReply}.
   */
  void onAnswer(Future<ConnectReply> reply, Endpoint ep, long generation);
}
