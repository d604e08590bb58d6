package io.vte.verbs.soft.impl.requester;

/**
 * A requester's window over its send queue's indices, which only grow: what the current stream
 * sent, the most ever transmitted, and what the responder answered; and the sequence numbers (PSNs)
 * those indices go out as: index {@code i} is sequence number {@code seqBase + i}. Plain fields:
 * its requester's lock guards them.
 */
public final class SendWindow {

  private long sent;

  /**
   * One past the highest index ever transmitted; after a rewind, responses up to it are still
   * valid.
   */
  private long transmitted;

  private long acked;
  private int seqBase;

  /**
   * @return one past the last index the current stream sent
   */
  public long sent() {
    return sent;
  }

  /**
   * @return one past the last index answered (the head: the oldest unanswered index)
   */
  public long acked() {
    return acked;
  }

  /**
   * @param index a send-queue index
   * @return whether it was ever transmitted (a response to a later one answers nothing sent)
   */
  public boolean wasTransmitted(long index) {
    return index < transmitted;
  }

  /**
   * @return whether everything sent was answered
   */
  public boolean drained() {
    return acked == sent;
  }

  /** The next index went out. */
  public void sentOne() {
    sent++;
    transmitted = Math.max(transmitted, sent);
  }

  /** Goes back to the head: the stream resends from the oldest unanswered index. */
  public void rewind() {
    sent = acked;
  }

  /** The head was answered (or flushed): the window moves past it. */
  public void ackHead() {
    acked++;
    if (sent < acked) {
      sent = acked;
    }
    if (transmitted < acked) {
      transmitted = acked;
    }
  }

  /**
   * The QP was reset: nothing is in flight, and everything before {@code mark} is retired.
   *
   * @param mark the send-queue index the reset retired up to
   * @return whether the head moved (to {@code mark})
   */
  public boolean restartAt(long mark) {
    boolean moved = acked < mark;
    if (moved) {
      acked = mark;
    }
    sent = acked;
    transmitted = acked;
    return moved;
  }

  /**
   * The QP reached RTS: index {@code base} goes out as sequence number {@code psn}.
   *
   * @param base the send-queue index posted first at RTS time
   * @param psn its sequence number (the QP's send PSN)
   */
  public void startAt(long base, int psn) {
    seqBase = psn - (int) base;
    sent = Math.max(sent, base);
    transmitted = Math.max(transmitted, sent);
  }

  /**
   * @param index a send-queue index
   * @return its sequence number
   */
  public int seqOf(long index) {
    return seqBase + (int) index;
  }

  /**
   * @param seq a sequence number of a response
   * @return the send-queue index it names, relative to the head
   */
  public long indexOf(int seq) {
    return acked + (seq - seqOf(acked));
  }
}
