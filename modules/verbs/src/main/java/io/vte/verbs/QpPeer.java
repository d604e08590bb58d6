package io.vte.verbs;

/**
 * The remote end of an RC connection, as exchanged in the handshake and given to {@link
 * QueuePair#toRtr(QpPeer, int)}.
 *
 * @param qpNum the peer's QP number
 * @param lid the peer port's LID (soft verbs: its TCP listen port)
 * @param gid the peer port's GID (soft verbs: its IPv4-mapped address)
 * @param psn the peer's initial send packet sequence number (our expected receive PSN), 24 bits
 */
public record QpPeer(int qpNum, int lid, Gid gid, int psn) {

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
  }
}
