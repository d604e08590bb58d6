package io.vte.verbs;

/**
 * What a QP is created with ({@code ibv_qp_init_attr}, RC only).
 *
 * @param sendCq CQ for send-queue completions
 * @param recvCq CQ for receive-queue completions (may be the same as {@code sendCq})
 * @param maxSendWr send-queue depth, at least 1
 * @param maxRecvWr receive-queue depth, at least 1
 * @param maxInlineData largest payload posted inline, in bytes (0 for none)
 */
public record QpInitAttributes(
    CompletionQueue sendCq,
    CompletionQueue recvCq,
    int maxSendWr,
    int maxRecvWr,
    int maxInlineData) {

  /** Validates the attributes. */
  public QpInitAttributes {
    if (sendCq == null || recvCq == null) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "a QP needs a send CQ and a receive CQ");
    }
    if (maxSendWr < 1 || maxRecvWr < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "queue depths must be >= 1, got maxSendWr=" + maxSendWr + " maxRecvWr=" + maxRecvWr);
    }
    if (maxInlineData < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "maxInlineData must be >= 0, got " + maxInlineData);
    }
  }
}
