package io.vte.verbs;

/**
 * One opened device ({@code ibv_context}): its ports, protection domains, completion queues and
 * async events. Closing it closes everything created from it, in order (QPs, MRs, PDs, CQs), and
 * stops its threads.
 */
public interface VerbsContext extends AutoCloseable {

  /**
   * @return the device name
   */
  String deviceName();

  /**
   * @return the provider name
   */
  String providerName();

  /**
   * @return the number of ports (ports are numbered from 1)
   */
  int portCount();

  /**
   * @param port port number, from 1
   * @return the port's current attributes
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for a port that does not exist
   */
  PortAttributes queryPort(int port);

  /**
   * @return true when work requests flagged {@link WrFlags#INTEGRITY} are checked end to end (soft
   *     verbs); false (the default) when the flag must not be set
   */
  default boolean checksPayloadIntegrity() {
    return false;
  }

  /**
   * @return the largest queues this device creates ({@link QueueLimits#UNBOUNDED} unless the
   *     provider knows of a limit)
   */
  default QueueLimits queueLimits() {
    return QueueLimits.UNBOUNDED;
  }

  /**
   * @return what this device served to peers as a responder (soft verbs counts it); null when the
   *     provider does not count (ibverbs: the NIC serves one-sided operations without the host, see
   *     {@link #portCounters})
   */
  default ServedCounters servedCounters() {
    return null;
  }

  /**
   * @param port port number, from 1
   * @return the NIC's own traffic counters of the port (ibverbs: the kernel's); null when the
   *     provider has none
   */
  default PortCounters portCounters(int port) {
    return null;
  }

  /**
   * @return a new protection domain
   */
  ProtectionDomain allocPd();

  /**
   * Creates a completion queue with a fixed capacity. Posting more signaled work than the capacity
   * without polling overflows it: a {@link AsyncEventType#CQ_ERR} event is raised and the QPs on it
   * go to {@link QpState#ERR}.
   *
   * @param capacity number of completions it holds, at least 1
   * @return the CQ
   */
  CompletionQueue createCq(int capacity);

  /**
   * Sets the handler of this device's async events. Called on a provider thread; it must not block
   * (hop to an event loop). Replaces any previous handler; {@code null} discards events.
   *
   * @param handler the handler
   */
  void setAsyncEventHandler(AsyncEventHandler handler);

  /** Closes the device and everything created from it. Idempotent. */
  @Override
  void close();
}
