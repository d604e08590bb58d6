package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.DirectMemory;
import io.vte.verbs.soft.impl.SoftMr;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;

/**
 * The send side of one connection: frames go out many per gathering write. Headers and small
 * payloads are staged in a send buffer; large payloads are written straight from their memory
 * through reusable windows. When some frames have large payloads the write is a {@link
 * FrameHeader#BATCH}: its header, a block of the frames' headers (small payloads inline), then the
 * large payloads back to back, so the receiver knows every header before the payloads arrive.
 *
 * <p>A cycle: {@link #append} frames, {@link #seal()}, {@link #write} until {@link #drained()},
 * then {@link #reset()}. Every access to a registered region's memory (one copy, or one write with
 * every source region in it) is bracketed by {@link SoftMr#acquire()} and {@link SoftMr#release()};
 * a payload whose region closed cannot be sent whole, so the caller aborts the connection. Steady
 * state allocates nothing. NIC thread, or a posting thread that holds the connection's handler
 * lock.
 */
public final class FrameWriter implements FrameSink {

  /** Largest staging for outgoing headers and small payloads: the send buffer grows up to it. */
  public static final int TX_BYTES = 64 * 1024;

  /**
   * Staging a connection starts with: enough for a HELLO, ACKs and a few small frames, so an idle
   * or lightly used connection holds little memory; a write that needs more doubles it (up to
   * {@link #TX_BYTES}), once, for the connection's life.
   */
  public static final int TX_INITIAL_BYTES = 4 * 1024;

  /** Payloads up to this size travel inside the batch block, right after their header. */
  public static final int SMALL_PAYLOAD = 16 * 1024;

  /** Most entries in one gathering write: the batch block, then payload windows. */
  private static final int MAX_IOV = 64;

  /** Large-payload bytes after which a gathering write takes no further frame. */
  private static final long GATHER_BYTES = 1024 * 1024;

  private ByteBuffer tx = ByteBuffer.allocateDirect(TX_INITIAL_BYTES);
  private long txAddress = DirectMemory.address(tx);

  /**
   * The gathering write being built or drained: {@link #tx} (a BATCH header, then the frames'
   * headers and small payloads), then windows over the large payloads, so many frames leave in one
   * {@code writev}.
   */
  private final ByteBuffer[] gather = new ByteBuffer[MAX_IOV];

  /** The source region of each large-payload entry of {@link #gather} (null for {@link #tx}). */
  private final SoftMr[] gatherRegion = new SoftMr[MAX_IOV];

  /** The view of {@link #tx} in {@link #gather}. */
  private ByteBuffer txRun = tx.duplicate();

  private final NativeWindow[] payloadWindows = new NativeWindow[MAX_IOV - 1];
  private int gatherCount;

  /** First entry of {@link #gather} not fully written yet (while draining). */
  private int gatherFirst;

  private int windowCount;

  /** Large-payload bytes in {@link #gather}: appends stop at {@link #GATHER_BYTES}. */
  private long gatherPayloadBytes;

  /** A small payload's source region closed during {@link #append}: the connection aborts. */
  private boolean sourceLost;

  private boolean draining;

  public FrameWriter() {
    for (int i = 0; i < payloadWindows.length; i++) {
      payloadWindows[i] = new NativeWindow();
    }
    tx.position(FrameHeader.SIZE); // room for the BATCH header
  }

  /**
   * Appends one frame to the write being built; nothing is written before {@link #seal()}.
   *
   * @return false when there is no room now (or the write is draining), or when {@code region} is
   *     closed ({@link #sourceLost()} then says so)
   */
  @Override
  public boolean append(
      int opcode,
      int status,
      int qpn,
      int seq,
      int rkey,
      long raddr,
      int length,
      int imm,
      long payloadAddress,
      int payloadLength,
      SoftMr region) {
    if (draining
        || sourceLost
        || !hasRoom(FrameHeader.SIZE)
        || gatherPayloadBytes >= GATHER_BYTES) {
      return false;
    }
    if (payloadLength <= SMALL_PAYLOAD) {
      if (!hasRoom(FrameHeader.SIZE + payloadLength)) {
        return false;
      }
      int payloadAt = tx.position() + FrameHeader.SIZE;
      if (payloadLength > 0
          && !GuardedAccess.copy(region, payloadAddress, txAddress + payloadAt, payloadLength)) {
        sourceLost = true;
        return false;
      }
      FrameHeader.encode(tx, opcode, status, qpn, seq, rkey, raddr, length, imm);
      tx.position(payloadAt + payloadLength);
      return true;
    }
    if (windowCount == payloadWindows.length) {
      return false;
    }
    FrameHeader.encode(tx, opcode, status, qpn, seq, rkey, raddr, length, imm);
    gatherRegion[1 + windowCount] = region;
    gather[1 + windowCount] = payloadWindows[windowCount].window(payloadAddress, payloadLength);
    windowCount++;
    gatherPayloadBytes += payloadLength;
    return true;
  }

  /**
   * @return true when {@link #tx} has {@code bytes} free, after growing it (not while draining)
   */
  private boolean hasRoom(int bytes) {
    if (tx.remaining() >= bytes) {
      return true;
    }
    int used = tx.position();
    if (tx.capacity() == TX_BYTES || used + bytes > TX_BYTES) {
      return false;
    }
    int capacity = Math.min(TX_BYTES, Integer.highestOneBit(used + bytes - 1) << 1);
    ByteBuffer grown = ByteBuffer.allocateDirect(capacity);
    long grownAddress = DirectMemory.address(grown);
    DirectMemory.copy(txAddress, grownAddress, used);
    grown.position(used);
    tx = grown;
    txAddress = grownAddress;
    txRun = grown.duplicate();
    return true;
  }

  /**
   * @return bytes of staging this writer holds now (it grows on demand)
   */
  public int stagingCapacity() {
    return tx.capacity();
  }

  /**
   * @return true when a small payload's region closed during {@link #append}: the frame cannot go
   *     whole
   */
  public boolean sourceLost() {
    return sourceLost;
  }

  /**
   * Ends the write being built: puts {@link #tx} in front of the payload windows, as is when there
   * are none, else announced by a BATCH header. From here until {@link #reset()} the writer is
   * draining.
   *
   * @return false when nothing was appended (the writer stays open for appends)
   */
  public boolean seal() {
    int end = tx.position();
    if (windowCount == 0) {
      if (end == FrameHeader.SIZE) {
        return false;
      }
      txRun.limit(end).position(FrameHeader.SIZE);
    } else {
      tx.position(0);
      FrameHeader.encode(tx, FrameHeader.BATCH, 0, 0, 0, 0, 0, end - FrameHeader.SIZE, 0);
      tx.position(end);
      txRun.limit(end).position(0);
    }
    gather[0] = txRun;
    gatherRegion[0] = null;
    gatherCount = 1 + windowCount;
    draining = true;
    return true;
  }

  /**
   * @return true from {@link #seal()} to {@link #reset()}: a sealed write still has bytes to go
   */
  public boolean isDraining() {
    return draining;
  }

  /**
   * One gathering write of what is left of the sealed write, with every source region in it held
   * for the call.
   *
   * @return false, having written nothing, when one of those regions is closed
   */
  public boolean write(GatheringByteChannel channel) throws IOException {
    int first = gatherFirst;
    int count = gatherCount;
    int held = first;
    boolean open = true;
    for (; held < count; held++) {
      SoftMr region = gatherRegion[held];
      if (region != null && !region.acquire()) {
        open = false;
        break;
      }
    }
    try {
      if (open) {
        channel.write(gather, first, count - first);
      }
    } finally {
      for (int i = first; i < held; i++) {
        SoftMr region = gatherRegion[i];
        if (region != null) {
          region.release();
        }
      }
    }
    while (first < count && !gather[first].hasRemaining()) {
      first++;
    }
    gatherFirst = first;
    return open;
  }

  /**
   * @return true when the sealed write has gone out whole
   */
  public boolean drained() {
    return gatherFirst >= gatherCount;
  }

  /**
   * Forgets the write (sent, or abandoned at close) and its regions: the writer takes appends
   * again.
   */
  public void reset() {
    for (int i = 0; i < gatherCount; i++) {
      gather[i] = null;
      gatherRegion[i] = null;
    }
    gatherCount = 0;
    gatherFirst = 0;
    windowCount = 0;
    gatherPayloadBytes = 0;
    tx.clear().position(FrameHeader.SIZE);
    draining = false;
  }
}
