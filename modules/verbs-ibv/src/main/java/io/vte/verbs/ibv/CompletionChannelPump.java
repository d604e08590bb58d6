package io.vte.verbs.ibv;

/**
 * Waits on a context's completion channel and hands each CQ event to its {@link
 * IbvCompletionQueue}, which calls its notification handler and acknowledges events in batches.
 */
final class CompletionChannelPump implements EventThread.Source {

  private final IbvContext context;
  private final long channel;

  /**
   * @param context the context that maps CQ handles to CQs
   * @param channel its {@code ibv_comp_channel*}
   */
  CompletionChannelPump(IbvContext context, long channel) {
    this.context = context;
    this.channel = channel;
  }

  @Override
  public int pollOnce(int timeoutMillis) {
    long cq = IbvNative.nextCqEvent(channel, timeoutMillis);
    if (cq == 0) {
      return 0;
    }
    IbvCompletionQueue target = context.cqByHandle(cq);
    if (target == null) {
      // Cannot happen while the CQ exists (destroy waits for its events); ack so nothing waits
      // forever.
      IbvNative.ackCqEvents(cq, 1);
    } else {
      target.onChannelEvent();
    }
    return 1;
  }
}
