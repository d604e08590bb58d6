package io.vte.verbs;

/**
 * Send work-request opcodes, numbered as {@code enum ibv_wr_opcode}; ints so the hot path stays
 * flat.
 */
public final class WrOpcode {

  /** One-sided write into the peer's region. */
  public static final int RDMA_WRITE = 0;

  /** One-sided write that also consumes a receive on the peer and carries immediate data. */
  public static final int RDMA_WRITE_WITH_IMM = 1;

  /** Two-sided send: consumes a receive posted by the peer. */
  public static final int SEND = 2;

  /** Send with immediate data. */
  public static final int SEND_WITH_IMM = 3;

  /** One-sided read from the peer's region. */
  public static final int RDMA_READ = 4;

  /** Marker for receive work requests in a {@link WorkRequestBatch} posted with postRecv. */
  public static final int RECV = 128;

  private WrOpcode() {}

  /**
   * @param opcode an opcode
   * @return its name, or {@code UNKNOWN(n)}
   */
  public static String name(int opcode) {
    switch (opcode) {
      case RDMA_WRITE:
        return "RDMA_WRITE";
      case RDMA_WRITE_WITH_IMM:
        return "RDMA_WRITE_WITH_IMM";
      case SEND:
        return "SEND";
      case SEND_WITH_IMM:
        return "SEND_WITH_IMM";
      case RDMA_READ:
        return "RDMA_READ";
      case RECV:
        return "RECV";
      default:
        return "UNKNOWN(" + opcode + ")";
    }
  }
}
