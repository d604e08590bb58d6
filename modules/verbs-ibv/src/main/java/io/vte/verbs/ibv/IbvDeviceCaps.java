package io.vte.verbs.ibv;

/**
 * The limits of an opened device ({@code ibv_query_device}) that VTE checks its options against.
 *
 * @param ports physical port count
 * @param maxQpWr deepest send or receive queue ({@code max_qp_wr})
 * @param maxSge scatter/gather entries per work request ({@code max_sge})
 * @param maxCqe largest CQ ({@code max_cqe})
 * @param maxQpRdAtom RDMA READs a QP answers at once ({@code max_qp_rd_atom})
 * @param maxQpInitRdAtom RDMA READs a QP issues at once ({@code max_qp_init_rd_atom})
 * @param maxMrSize largest memory region ({@code max_mr_size}, unsigned)
 * @param maxQp QPs per device ({@code max_qp})
 * @param maxCq CQs per device ({@code max_cq})
 * @param compVectors completion vectors of the context ({@code num_comp_vectors})
 */
public record IbvDeviceCaps(
    int ports,
    int maxQpWr,
    int maxSge,
    int maxCqe,
    int maxQpRdAtom,
    int maxQpInitRdAtom,
    long maxMrSize,
    int maxQp,
    int maxCq,
    int compVectors) {

  /**
   * @param ctx an {@code ibv_context*}
   * @return its limits
   */
  static IbvDeviceCaps query(long ctx) {
    long[] out = new long[IbvNative.DEVICE_OUT_LEN];
    IbvNative.queryDevice(ctx, out);
    return new IbvDeviceCaps(
        (int) out[IbvNative.DEVICE_PORTS],
        (int) out[IbvNative.DEVICE_MAX_QP_WR],
        (int) out[IbvNative.DEVICE_MAX_SGE],
        (int) out[IbvNative.DEVICE_MAX_CQE],
        (int) out[IbvNative.DEVICE_MAX_QP_RD_ATOM],
        (int) out[IbvNative.DEVICE_MAX_QP_INIT_RD_ATOM],
        out[IbvNative.DEVICE_MAX_MR_SIZE],
        (int) out[IbvNative.DEVICE_MAX_QP],
        (int) out[IbvNative.DEVICE_MAX_CQ],
        Math.max(1, (int) out[IbvNative.DEVICE_COMP_VECTORS]));
  }

  @Override
  public String toString() {
    return "max_qp_wr="
        + maxQpWr
        + " max_sge="
        + maxSge
        + " max_cqe="
        + maxCqe
        + " max_qp_rd_atom="
        + maxQpRdAtom
        + " max_qp_init_rd_atom="
        + maxQpInitRdAtom
        + " max_mr_size="
        + Long.toUnsignedString(maxMrSize)
        + " max_qp="
        + maxQp
        + " max_cq="
        + maxCq
        + " comp_vectors="
        + compVectors;
  }
}
