package io.vte.verbs;

/** Work-completion opcodes, numbered as {@code enum ibv_wc_opcode}. */
public final class WcOpcode {

  /** A SEND completed. */
  public static final int SEND = 0;

  /** An RDMA WRITE completed. */
  public static final int RDMA_WRITE = 1;

  /** An RDMA READ completed. */
  public static final int RDMA_READ = 2;

  /** A RECV completed (a SEND arrived). */
  public static final int RECV = 128;

  /** A RECV was consumed by an RDMA WRITE with immediate data. */
  public static final int RECV_RDMA_WITH_IMM = 129;

  private WcOpcode() {}

  /**
   * @param wrOpcode a {@link WrOpcode}
   * @return the completion opcode a successful WR of that kind reports
   */
  public static int forWrOpcode(int wrOpcode) {
    switch (wrOpcode) {
      case WrOpcode.RDMA_WRITE:
      case WrOpcode.RDMA_WRITE_WITH_IMM:
        return RDMA_WRITE;
      case WrOpcode.RDMA_READ:
        return RDMA_READ;
      case WrOpcode.RECV:
        return RECV;
      default:
        return SEND;
    }
  }

  /**
   * @param opcode a completion opcode
   * @return its name, or {@code UNKNOWN(n)}
   */
  public static String name(int opcode) {
    switch (opcode) {
      case SEND:
        return "SEND";
      case RDMA_WRITE:
        return "RDMA_WRITE";
      case RDMA_READ:
        return "RDMA_READ";
      case RECV:
        return "RECV";
      case RECV_RDMA_WITH_IMM:
        return "RECV_RDMA_WITH_IMM";
      default:
        return "UNKNOWN(" + opcode + ")";
    }
  }
}
