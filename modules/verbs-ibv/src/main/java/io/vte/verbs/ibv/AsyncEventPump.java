package io.vte.verbs.ibv;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import java.lang.System.Logger.Level;

/**
 * Drains a device's async events: waits for the async fd, then reads events until EAGAIN. The shim
 * acknowledges each event exactly once, right after copying it out, so destroying the object it
 * names never waits on an unacknowledged event.
 */
final class AsyncEventPump implements EventThread.Source {

  private static final System.Logger LOG = System.getLogger(AsyncEventPump.class.getName());

  private final IbvContext context;
  private final long ctx;
  private final long[] out = new long[IbvNative.ASYNC_OUT_LEN];

  /**
   * @param context the context whose handler receives the events
   * @param ctx its {@code ibv_context*}
   */
  AsyncEventPump(IbvContext context, long ctx) {
    this.context = context;
    this.ctx = ctx;
  }

  @Override
  public int pollOnce(int timeoutMillis) {
    int ready = IbvNative.awaitAsyncEvent(ctx, timeoutMillis);
    if (ready < 0) {
      throw IbvErrors.fromErrno(
          "poll", -ready, "async fd of device '" + context.deviceName() + "'");
    }
    if (ready == 0) {
      return 0;
    }
    int handled = 0;
    int r;
    while ((r = IbvNative.nextAsyncEvent(ctx, out)) == 1) {
      int code = (int) out[IbvNative.ASYNC_TYPE];
      if (code >= 0 && code < AsyncEventType.values().length) {
        context.deliver(toEvent(AsyncEventType.of(code)));
      } else {
        LOG.log(
            Level.WARNING,
            "ignoring async event type "
                + code
                + " (unknown to VTE) on '"
                + context.deviceName()
                + "'; it was acknowledged");
      }
      handled++;
    }
    if (r < 0) {
      throw IbvErrors.fromErrno("ibv_get_async_event", -r, "device '" + context.deviceName() + "'");
    }
    return handled;
  }

  private AsyncEvent toEvent(AsyncEventType type) {
    long cq = out[IbvNative.ASYNC_CQ];
    return new AsyncEvent(
        type,
        context.deviceName(),
        (int) out[IbvNative.ASYNC_QP_NUM],
        (int) out[IbvNative.ASYNC_PORT],
        cq == 0 ? null : context.cqByHandle(cq));
  }
}
