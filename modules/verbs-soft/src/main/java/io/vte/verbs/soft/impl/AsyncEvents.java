package io.vte.verbs.soft.impl;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventHandler;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A device's async events: raised on any thread, handed to the handler on the NIC thread, each
 * exactly once and outside any lock.
 */
final class AsyncEvents {

  private final ConcurrentLinkedQueue<AsyncEvent> queue = new ConcurrentLinkedQueue<>();
  private final Runnable wake;
  private final DeviceLog log;
  private volatile AsyncEventHandler handler;

  /**
   * @param wake wakes the NIC thread to deliver
   * @param log where a throwing handler is logged
   */
  AsyncEvents(Runnable wake, DeviceLog log) {
    this.wake = wake;
    this.log = log;
  }

  void setHandler(AsyncEventHandler handler) {
    this.handler = handler;
  }

  /** Queues an event and wakes the NIC thread (any thread). */
  void raise(AsyncEvent event) {
    queue.offer(event);
    wake.run();
  }

  boolean hasPending() {
    return !queue.isEmpty();
  }

  /** NIC thread: hands queued events to the handler. */
  void deliver() {
    AsyncEvent e;
    while ((e = queue.poll()) != null) {
      AsyncEventHandler h = handler;
      if (h != null) {
        try {
          h.onEvent(e);
        } catch (RuntimeException | Error ex) { // a user's handler must not take the NIC down
          log.handlerFailure("async event handler", ex);
        }
      }
    }
  }
}
