package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.DirectMemory;
import io.vte.verbs.soft.impl.SoftMr;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;

/**
 * The receive side of one connection: turns the byte stream into frames for its {@link
 * FrameReceiver}. Headers come into a staging buffer (small, and grown only while small frames fill
 * it); a payload is copied from there, or read straight from the channel into its target memory;
 * the block of a {@link FrameHeader#BATCH} is read whole, its headers handed over one by one, its
 * small payloads copied out of it, and the read that ends one large payload also fills the next
 * ones the receiver vouches for ({@link FrameReceiver#previewWrite}), so a run of WRITEs costs few
 * reads.
 *
 * <p>A state machine over {@link ReadState}, one method per state; {@link #read()} runs it until
 * the channel has nothing more for now, the receiver cannot take a frame, the stream ends, or a
 * frame is malformed ({@link FrameError}). Every access to a registered region's memory (one read
 * or one copy) is bracketed by {@link SoftMr#acquire()} and {@link SoftMr#release()}, and by the
 * receiver's {@link FrameReceiver#payloadGate()} if it has one; when the region or the gate closes
 * under a payload, the rest of that payload is read on and discarded (the receiver hears it was
 * lost). Steady state allocates nothing. NIC thread only (or a test's thread).
 */
public final class FrameReader {

  /**
   * Receive staging a connection starts with, and the most one read brings in where a large payload
   * may follow: little payload comes along with its header (that part is copied), the rest of a
   * large payload is read straight into the target memory.
   */
  public static final int RX_BYTES = 8 * 1024;

  /**
   * Largest receive staging. While frames come outside batches (small payloads, responses), a read
   * takes as much as the staging holds, so a run of small WRITEs costs about one read per gathering
   * write of the sender; a read that fills the staging doubles it (up to this), once, for the
   * connection's life.
   */
  public static final int RX_MAX_BYTES = 64 * 1024;

  /** Largest batch block: the sender's staging size. */
  public static final int BLOCK_BYTES = FrameWriter.TX_BYTES;

  /** Smallest block buffer, allocated at the first batch (a connection without one holds none). */
  private static final int BLOCK_INITIAL_BYTES = 4 * 1024;

  private static final int DIRECT_READ_MIN = 2 * 1024;

  /**
   * Channel reads per {@link #read()}: then the responses so far go out (ACKs flow while a long
   * stream comes in) and other connections get their turn; level-triggered selection brings the NIC
   * back.
   */
  private static final int READS_PER_WAKEUP = 16;

  private final ScatteringByteChannel channel;
  private final FrameReceiver receiver;
  private ReadState state = ReadState.HEADER;
  private boolean closed;
  private FrameError error;

  /** Set by a state method that ends the current {@link #read()}. */
  private ReadOutcome outcome;

  /** Channel reads in the current {@link #read()}. */
  private int reads;

  /** False once a short read drained the channel: the read that would return 0 is skipped. */
  private boolean channelMayHaveMore;

  private ByteBuffer rx = ByteBuffer.allocateDirect(RX_BYTES);
  private long rxAddress = DirectMemory.address(rx);

  /**
   * True when the last frame from the stream was not a batch: only small payloads come that way, so
   * reads take as much as {@link #rx} holds; after a batch they take at most {@link #RX_BYTES}.
   */
  private boolean smallFrames;

  private final FrameHeader header = new FrameHeader();
  private int rxConsumed;
  private long payloadAddress;
  private long payloadRemaining;

  /** Holds the target region (and so its memory) reachable while the payload streams into it. */
  private SoftMr payloadRegion;

  /** The receiver's gate of the current payload ({@link FrameReceiver#payloadGate}), or null. */
  private AccessGate payloadGate;

  /**
   * The target region closed under the current payload: its remaining bytes are being discarded.
   */
  private boolean payloadLost;

  private ByteBuffer payloadView;
  private final NativeWindow rxWindow = new NativeWindow();

  /**
   * The block of a batch being handled: its headers and small payloads (large payloads follow it).
   */
  private ByteBuffer block = ByteBuffer.allocateDirect(0);

  private long blockAddress = DirectMemory.address(block);

  /** [rest of the block, {@link #rx}]. */
  private final ByteBuffer[] blockScatter = {block, rx};

  /** Headers come from {@link #block}, at {@link #blockPos}, up to {@link #blockLimit}. */
  private boolean inBatch;

  private int blockPos;
  private int blockLimit;

  /** Where in {@link #block} the current header was, or -1 when it came from the stream. */
  private int headerAt = -1;

  /**
   * The read that ends the current payload: [rest of it, later payloads of the batch as far as
   * {@link FrameReceiver#previewWrite} vouches for them, {@link #rx}].
   */
  private final ByteBuffer[] scatter = new ByteBuffer[PayloadChain.MAX_CHAIN + 2];

  /** Later payloads of the batch filled by the read that ends the current one. */
  private final PayloadChain chain = new PayloadChain();

  public FrameReader(ScatteringByteChannel channel, FrameReceiver receiver) {
    this.channel = channel;
    this.receiver = receiver;
  }

  /** The state the next {@link #read()} resumes in. */
  public ReadState state() {
    return state;
  }

  /**
   * @return the malformed frame that made {@link #read()} return {@link
   *     ReadOutcome#PROTOCOL_ERROR}, or null
   */
  public FrameError error() {
    return error;
  }

  /**
   * Reads and hands over frames until there is nothing more to do for now.
   *
   * @return why it stopped; after {@link ReadOutcome#END_OF_STREAM} or {@link
   *     ReadOutcome#PROTOCOL_ERROR} the owner closes the reader
   */
  public ReadOutcome read() throws IOException {
    reads = 0;
    channelMayHaveMore = true;
    outcome = null;
    while (outcome == null) {
      if (closed) {
        return ReadOutcome.CLOSED;
      }
      switch (state) {
        case HEADER -> readHeader();
        case PAYLOAD -> readPayload();
        case INLINE_PAYLOAD -> readInlinePayload();
        case DIRECT -> readDirect();
        case BLOCK -> readBlock();
      }
    }
    return outcome;
  }

  /**
   * Sets where the current frame's payload goes (from {@link FrameReceiver#onHeader}).
   *
   * @param address target address, or 0 to discard the payload
   * @param length payload length (unsigned)
   * @param region the registered region that holds the target, or null
   */
  public void expectPayload(long address, int length, SoftMr region) {
    long len = length & 0xffffffffL;
    state =
        inBatch && len <= FrameWriter.SMALL_PAYLOAD ? ReadState.INLINE_PAYLOAD : ReadState.PAYLOAD;
    payloadRegion = region;
    payloadGate = region == null ? null : receiver.payloadGate();
    payloadLost = false;
    payloadAddress = address;
    payloadRemaining = len;
    if (chain.landedAt(headerAt)) {
      // the payload's head came with the read that ended an earlier one, into the previewed target
      // (the entry is dropped once the receiver has its header: it may call this more than once)
      int landed = chain.landed();
      long previewed = chain.previewedAddress();
      payloadRemaining -= landed;
      if (address == previewed) {
        payloadAddress = address + landed;
      } else if (address != 0) {
        losePayload(payloadRemaining); // it cannot be completed where the receiver wants it
      }
    }
  }

  /**
   * Stops reading for good and lets go of the current payload's target (the channel is its
   * owner's).
   */
  public void close() {
    closed = true;
    payloadView = null;
    payloadRegion = null;
    payloadGate = null;
    inBatch = false;
    chain.clear();
  }

  // ---- one method per state ----

  private void readHeader() throws IOException {
    if (inBatch && blockPos == blockLimit) {
      inBatch = false;
    }
    if (!inBatch && rx.position() - rxConsumed < FrameHeader.SIZE) {
      fillRx();
      return;
    }
    if (!receiver.canReceive()) {
      outcome = ReadOutcome.PAUSED;
      return;
    }
    if (inBatch) {
      if (blockLimit - blockPos < FrameHeader.SIZE
          || !header.decode(block, blockPos)
          || header.opcode == FrameHeader.BATCH) {
        fail(FrameError.badFrameInBatch());
        return;
      }
      headerAt = blockPos;
      blockPos += FrameHeader.SIZE;
    } else {
      if (!header.decode(rx, rxConsumed)) {
        fail(FrameError.badMagic());
        return;
      }
      rxConsumed += FrameHeader.SIZE;
      headerAt = -1;
      smallFrames = header.opcode != FrameHeader.BATCH;
      if (header.opcode == FrameHeader.BATCH) {
        if (header.length < FrameHeader.SIZE || header.length > BLOCK_BYTES) {
          fail(FrameError.badBatchLength(header.length));
          return;
        }
        ensureBlock(header.length);
        block.clear().limit(header.length);
        chain.clear();
        state = ReadState.BLOCK;
        return;
      }
    }
    if (!receiver.onHeader(header)) {
      fail(FrameError.rejected(header));
      return;
    }
    if (chain.landedAt(headerAt)) {
      chain.advance();
    }
    if ((state == ReadState.PAYLOAD || state == ReadState.INLINE_PAYLOAD)
        && payloadRemaining == 0) {
      finishPayload();
    }
  }

  private void readPayload() throws IOException {
    int available = rx.position() - rxConsumed;
    if (available > 0) {
      int n = (int) Math.min(available, payloadRemaining);
      if (payloadAddress != 0) {
        if (!GuardedAccess.copy(
            payloadRegion, payloadGate, rxAddress + rxConsumed, payloadAddress, n)) {
          losePayload(payloadRemaining);
          return;
        }
        payloadAddress += n;
      }
      rxConsumed += n;
      payloadRemaining -= n;
      if (payloadRemaining == 0) {
        finishPayload();
      }
      return;
    }
    if (payloadAddress != 0 && payloadRemaining >= DIRECT_READ_MIN) {
      payloadView = rxWindow.window(payloadAddress, (int) payloadRemaining);
      state = ReadState.DIRECT;
      return;
    }
    fillRx();
  }

  private void readInlinePayload() {
    int n = (int) payloadRemaining;
    if (blockLimit - blockPos < n) {
      fail(FrameError.payloadBeyondBatch());
      return;
    }
    if (payloadAddress != 0
        && !GuardedAccess.copy(
            payloadRegion, payloadGate, blockAddress + blockPos, payloadAddress, n)) {
      payloadLost = true;
    }
    blockPos += n;
    payloadRemaining = 0;
    finishPayload();
  }

  private void readDirect() throws IOException {
    if (!channelMayHaveMore || reads++ == READS_PER_WAKEUP) {
      outcome = ReadOutcome.WAIT; // drained, or time to send the responses so far
      return;
    }
    SoftMr region = payloadRegion;
    AccessGate gate = payloadGate;
    if (!GuardedAccess.acquire(region, gate)) {
      losePayload(payloadView.remaining());
      return;
    }
    // rx is empty here: one read takes the rest of the payload, the later payloads of the batch
    // that can be told now, and what follows them (the next headers)
    int chained = 0;
    long n;
    try {
      chained = inBatch ? chain.fill(block, blockPos, blockLimit, receiver, scatter) : 0;
      clearRx();
      scatter[0] = payloadView;
      scatter[chained + 1] = rx;
      n = channel.read(scatter, 0, chained + 2);
    } finally {
      GuardedAccess.release(region, gate);
      chain.releaseRegions(chained);
    }
    if (n < 0) {
      outcome = ReadOutcome.END_OF_STREAM;
      return;
    }
    chain.keepLanded(chained, scatter);
    if (payloadView.hasRemaining()) {
      outcome = ReadOutcome.WAIT;
      return;
    }
    payloadView = null;
    channelMayHaveMore = !rx.hasRemaining();
    growIfSmallFramesFilledRx();
    finishPayload();
  }

  private void readBlock() throws IOException {
    int available = rx.position() - rxConsumed;
    if (available > 0) {
      int n = Math.min(available, block.remaining());
      DirectMemory.copy(rxAddress + rxConsumed, blockAddress + block.position(), n);
      block.position(block.position() + n);
      rxConsumed += n;
    } else if (channelMayHaveMore && reads++ < READS_PER_WAKEUP) {
      clearRx();
      if (channel.read(blockScatter) < 0) {
        outcome = ReadOutcome.END_OF_STREAM;
        return;
      }
      if (block.hasRemaining()) {
        outcome = ReadOutcome.WAIT;
        return;
      }
      channelMayHaveMore = !rx.hasRemaining();
    } else {
      outcome = ReadOutcome.WAIT;
      return;
    }
    if (!block.hasRemaining()) {
      inBatch = true;
      blockPos = 0;
      blockLimit = block.limit();
      state = ReadState.HEADER;
    }
  }

  /**
   * Grows {@link #block} to hold {@code length} bytes (a power of two, at most {@link
   * #BLOCK_BYTES}): a connection holds a block buffer only once batches come, sized to them. Only
   * between batches (nothing of the old block is still in use).
   */
  private void ensureBlock(int length) {
    if (block.capacity() >= length) {
      return;
    }
    int capacity =
        Math.min(
            BLOCK_BYTES, Math.max(BLOCK_INITIAL_BYTES, Integer.highestOneBit(length - 1) << 1));
    block = ByteBuffer.allocateDirect(capacity);
    blockAddress = DirectMemory.address(block);
    blockScatter[0] = block;
  }

  /**
   * @return bytes of direct memory this reader holds now (the staging buffer and the block)
   */
  public int bufferCapacity() {
    return rx.capacity() + block.capacity();
  }

  // ---- shared steps ----

  /** Reads more of the stream into {@link #rx}, keeping what is not consumed yet. */
  private void fillRx() throws IOException {
    if (!channelMayHaveMore || reads++ == READS_PER_WAKEUP) {
      outcome = ReadOutcome.WAIT; // level-triggered: selected again while bytes wait
      return;
    }
    if (rxConsumed == rx.position()) {
      clearRx();
    } else {
      if (rx.capacity() - rx.position() < FrameHeader.SIZE) {
        rx.limit(rx.position()).position(rxConsumed);
        rx.compact();
        rxConsumed = 0;
      }
      rx.limit(readLimit());
    }
    int space = rx.remaining();
    int n = channel.read(rx);
    if (n < 0) {
      outcome = ReadOutcome.END_OF_STREAM;
      return;
    }
    if (n == 0) {
      outcome = ReadOutcome.WAIT;
      return;
    }
    channelMayHaveMore = n == space; // a short read drained it: skip the read that returns 0
    growIfSmallFramesFilledRx();
  }

  /** Empties {@link #rx} for the next read, which may fill it up to {@link #readLimit()}. */
  private void clearRx() {
    rx.clear().limit(readLimit());
    rxConsumed = 0;
  }

  /**
   * @return where the next read into {@link #rx} must stop
   */
  private int readLimit() {
    return smallFrames ? rx.capacity() : Math.min(rx.capacity(), rx.position() + RX_BYTES);
  }

  /**
   * Doubles {@link #rx} (up to {@link #RX_MAX_BYTES}), keeping what is not consumed yet, when the
   * last read filled it while small frames come.
   */
  private void growIfSmallFramesFilledRx() {
    if (!channelMayHaveMore || !smallFrames || rx.capacity() == RX_MAX_BYTES) {
      return;
    }
    ByteBuffer bigger = ByteBuffer.allocateDirect(Math.min(RX_MAX_BYTES, rx.capacity() * 2));
    long biggerAddress = DirectMemory.address(bigger);
    int kept = rx.position() - rxConsumed;
    DirectMemory.copy(rxAddress + rxConsumed, biggerAddress, kept);
    bigger.position(kept);
    rx = bigger;
    rxAddress = biggerAddress;
    rxConsumed = 0;
    blockScatter[1] = rx;
  }

  private void fail(FrameError e) {
    error = e;
    outcome = ReadOutcome.PROTOCOL_ERROR;
  }

  /**
   * The target region closed: the payload's {@code remaining} bytes go nowhere, the stream stays in
   * sync.
   */
  private void losePayload(long remaining) {
    payloadLost = true;
    payloadRegion = null;
    payloadGate = null;
    payloadView = null;
    payloadAddress = 0;
    payloadRemaining = remaining;
    state = ReadState.PAYLOAD;
  }

  private void finishPayload() {
    boolean intact = !payloadLost;
    state = ReadState.HEADER;
    payloadLost = false;
    payloadRegion = null;
    payloadGate = null;
    receiver.onPayloadDone(header, intact);
  }
}
