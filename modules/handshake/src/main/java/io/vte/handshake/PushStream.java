package io.vte.handshake;

/**
 * The server's side of a server-streaming call: what a {@link HandshakeHandler} pushes to one
 * watcher. Thread-safe: each step hops to the call's own context.
 *
 * @param <T> message type
 */
public interface PushStream<T> {

  /**
   * Sends one message; dropped once the stream has ended. A watcher that does not read fast enough
   * to keep the write queue short is cut off (RESOURCE_EXHAUSTED): it watches again and starts from
   * a fresh snapshot.
   *
   * @param message the message
   */
  void send(T message);

  /** Ends the stream with an OK status, unless it has ended already. */
  void end();

  /**
   * Ends the stream with the status matching a failure, unless it has ended already.
   *
   * @param failure why
   */
  void fail(Throwable failure);

  /**
   * @param handler run once when the stream ends, whoever ended it (the watcher left, the server
   *     closed, {@link #end()} or {@link #fail}); at once when it has ended already
   * @return this
   */
  PushStream<T> closeHandler(Runnable handler);
}
