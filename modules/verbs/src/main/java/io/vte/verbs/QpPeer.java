package io.vte.verbs;

/**
 * The remote end of an RC connection, as exchanged in the handshake and given to {@link
 * QueuePair#toRtr(QpPeer, int)}.
 *
 * @param qpNum the peer's QP number
 * @param lid the peer port's LID (soft verbs: its TCP listen port)
 * @param gid the peer port's GID (soft verbs: its IPv4-mapped address)
 * @param psn the peer's initial send packet sequence number (our expected receive PSN), 24 bits
 * @param readDepth RDMA READs the peer QP answers at once (its {@code max_dest_rd_atomic}): ours
 *     issues no more; 0 when not known (then the provider's own depth)
 */
public record QpPeer(int qpNum, int lid, Gid gid, int psn, int readDepth) {

  /**
   * A peer whose READ depth is not known.
   *
   * @param qpNum as {@link #qpNum()}
   * @param lid as {@link #lid()}
   * @param gid as {@link #gid()}
   * @param psn as {@link #psn()}
   */
  public QpPeer(int qpNum, int lid, Gid gid, int psn) {
    this(qpNum, lid, gid, psn, 0);
  }

  /** Validates ranges. */
  public QpPeer {
    if (gid == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "peer GID is null");
    }
    if (lid < 0 || lid > 0xffff) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "peer LID out of range: " + lid);
    }
    if ((psn & ~0xffffff) != 0) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "PSN must fit 24 bits: " + psn);
    }
    if (readDepth < 0 || readDepth > 255) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "peer READ depth must be 0..255: " + readDepth);
    }
  }
}
