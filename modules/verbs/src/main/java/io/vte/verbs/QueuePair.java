package io.vte.verbs;

/**
 * A reliable-connected queue pair ({@code ibv_qp}, {@code IBV_QPT_RC}).
 *
 * <p>State machine: RESET -> INIT -> RTR -> RTS, any state -> ERR, any state -> RESET. An illegal
 * transition throws {@link VerbsException} with {@link VerbsError#INVALID_STATE}. Posting sends
 * before RTS, or receives in RESET, returns {@link PostStatus#INVALID_STATE}. In ERR every
 * outstanding and later work request completes with {@link WcStatus#WR_FLUSH_ERR}. Work requests on
 * one QP execute in order.
 */
public interface QueuePair extends AutoCloseable {

  /**
   * @return the QP number, unique within its device
   */
  int qpNum();

  /**
   * @return the current state
   */
  QpState state();

  /**
   * RESET -> INIT.
   *
   * @param port port number, from 1
   * @param accessFlags remote access this QP grants as responder ({@link AccessFlags})
   */
  void toInit(int port, int accessFlags);

  /**
   * INIT -> RTR: connect to the peer.
   *
   * @param peer the peer QP's number, LID, GID and initial PSN
   * @param pathMtu path MTU in bytes (256..4096, power of two)
   */
  void toRtr(QpPeer peer, int pathMtu);

  /**
   * RTR -> RTS.
   *
   * @param attributes send PSN and timeout/retry settings
   */
  void toRts(RtsAttributes attributes);

  /** Any state -> ERR: outstanding work requests flush. */
  void toError();

  /** Any state -> RESET: the QP forgets its peer; queued work is discarded without completions. */
  void toReset();

  /**
   * Posts send-queue work requests (WRITE, READ, SEND), in order. WRs before the failing one are
   * posted; the failing one and those after it are not ({@link WorkRequestBatch#badIndex()}).
   *
   * @param batch the work requests
   * @return {@link PostStatus#OK} or a negative {@link PostStatus} code
   */
  int postSend(WorkRequestBatch batch);

  /**
   * Posts receive work requests (only wrId, local address, length and lkey are read).
   *
   * @param batch the work requests
   * @return {@link PostStatus#OK} or a negative {@link PostStatus} code
   */
  int postRecv(WorkRequestBatch batch);

  /** Destroys the QP. Outstanding work is discarded. Idempotent. */
  @Override
  void close();
}
