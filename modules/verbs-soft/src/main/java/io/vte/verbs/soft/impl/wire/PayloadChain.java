package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.soft.impl.SoftMr;
import java.nio.ByteBuffer;

/**
 * The large payloads of later frames in a batch that one read fills together with the end of the
 * current payload, as far as the receiver vouches for them ({@link FrameReceiver#previewWrite}):
 * while the read runs it holds each one's region; afterwards it remembers those that received bytes
 * (they fill in order) until their headers come up. Part of a {@link FrameReader}; NIC thread only.
 */
public final class PayloadChain {

  /** Most later payloads of a batch filled by the read that ends the current one. */
  public static final int MAX_CHAIN = 16;

  private final FrameHeader peek = new FrameHeader();
  private final NativeWindow[] windows = new NativeWindow[MAX_CHAIN];
  private final SoftMr[] regions = new SoftMr[MAX_CHAIN];

  /** Payloads that already received bytes: target, header position in the block, bytes landed. */
  private final long[] addresses = new long[MAX_CHAIN];

  private final int[] headersAt = new int[MAX_CHAIN];
  private final int[] landed = new int[MAX_CHAIN];
  private int head;
  private int count;

  public PayloadChain() {
    for (int i = 0; i < windows.length; i++) {
      windows[i] = new NativeWindow();
    }
  }

  /**
   * Adds to {@code scatter} (from index 1) the large payloads of the frames after position {@code
   * from} of the batch's block, as long as the receiver vouches for them; holds each one's region
   * until {@link #releaseRegions}.
   *
   * @return how many were added
   */
  public int fill(
      ByteBuffer block, int from, int limit, FrameReceiver receiver, ByteBuffer[] scatter) {
    int chained = 0;
    int at = from;
    int ahead = 1;
    while (chained < MAX_CHAIN && limit - at >= FrameHeader.SIZE && peek.decode(block, at)) {
      SoftMr region = receiver.previewWrite(peek, ahead);
      long len = peek.length & 0xffffffffL;
      if (region == null) {
        break;
      }
      if (len <= FrameWriter.SMALL_PAYLOAD) {
        // it travels in the block: nothing to read, but later frames depend on it
        at += FrameHeader.SIZE + (int) len;
        ahead++;
        continue;
      }
      if (!region.acquire()) {
        break;
      }
      regions[chained] = region;
      addresses[chained] = peek.raddr;
      headersAt[chained] = at;
      scatter[chained + 1] = windows[chained].window(peek.raddr, (int) len);
      chained++;
      at += FrameHeader.SIZE;
      ahead++;
    }
    return chained;
  }

  /** Lets go of the regions {@link #fill} held, once the read is over. */
  public void releaseRegions(int chained) {
    for (int i = 0; i < chained; i++) {
      regions[i].release();
      regions[i] = null;
    }
  }

  /**
   * Keeps the chained payloads that received bytes (they fill in order); forgets the rest and
   * clears their entries of {@code scatter}.
   */
  public void keepLanded(int chained, ByteBuffer[] scatter) {
    head = 0;
    count = 0;
    for (int i = 0; i < chained; i++) {
      int n = scatter[i + 1].position();
      if (n > 0) {
        landed[count++] = n;
      }
      scatter[i + 1] = null;
    }
    scatter[chained + 1] = null;
  }

  /**
   * @param headerAt where in the block the current header was, or -1
   * @return true when the next kept payload is that header's
   */
  public boolean landedAt(int headerAt) {
    return head < count && headersAt[head] == headerAt;
  }

  /**
   * @return the bytes of the next kept payload that landed already
   */
  public int landed() {
    return landed[head];
  }

  /**
   * @return where the next kept payload was previewed to land
   */
  public long previewedAddress() {
    return addresses[head];
  }

  /** The next kept payload's header was handled. */
  public void advance() {
    head++;
  }

  /** Forgets every kept payload. */
  public void clear() {
    head = 0;
    count = 0;
  }
}
