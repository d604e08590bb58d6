package io.vte.verbs;

/**
 * An async event of a device ({@code ibv_async_event}), delivered once to the context's {@link
 * AsyncEventHandler}.
 *
 * @param type what happened
 * @param deviceName the device it happened on
 * @param qpNum the QP concerned (QP events), else -1
 * @param port the port concerned (port events), else -1
 * @param cq the CQ concerned ({@link AsyncEventType#CQ_ERR}), else null
 */
public record AsyncEvent(
    AsyncEventType type, String deviceName, int qpNum, int port, CompletionQueue cq) {

  /**
   * @param deviceName device
   * @param type a port event type
   * @param port the port
   * @return a port event
   */
  public static AsyncEvent port(String deviceName, AsyncEventType type, int port) {
    return new AsyncEvent(type, deviceName, -1, port, null);
  }

  /**
   * @param deviceName device
   * @param type a QP event type
   * @param qpNum the QP number
   * @return a QP event
   */
  public static AsyncEvent qp(String deviceName, AsyncEventType type, int qpNum) {
    return new AsyncEvent(type, deviceName, qpNum, -1, null);
  }
}
