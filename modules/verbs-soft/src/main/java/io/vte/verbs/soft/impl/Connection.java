package io.vte.verbs.soft.impl;

import io.vte.verbs.DirectMemory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection of the soft NIC, driven only by its NIC thread: frames in (header into a small
 * receive buffer; payload copied from there or read straight from the socket into the target memory) and
 * frames out (headers and small payloads staged in a send buffer, large payloads written straight from
 * their memory). What the frames mean is up to its {@link Handler}.
 *
 * <p>Frames go out many per gathering write. When some have large payloads the write is a
 * {@link FrameHeader#BATCH}: its header, a block of the frames' headers (small payloads inline), then the
 * large payloads back to back. The receiver reads the block, hands the headers to the handler one by one
 * as before, and lets the read that ends one payload also fill the next payloads of the block that
 * {@link Handler#previewWrite} vouches for, so a run of WRITEs costs few reads. A frame that fails the
 * preview (bad rkey, bounds, permission, sequence) stops the run: it and what follows are handled one at a
 * time, and their targets are touched only if the handler accepts them.
 *
 * <p>Every access to a registered region's memory (one socket read or write, or one copy) is bracketed by
 * {@link SoftMr#acquire()} and {@link SoftMr#release()}. When a region closes under a frame, a payload
 * coming in is read on and discarded (the handler hears that it was lost), and a payload going out cannot
 * be completed, so the connection is aborted: the peer sees a lost stream and the requester starts over,
 * meeting the closed region in its checks.
 */
final class Connection {

  /** The role-specific logic on top of a connection (requester, responder, or HELLO acceptor). */
  interface Handler {

    /**
     * A header arrived. A frame with a payload must call {@link #expectPayload(long, int, SoftMr)}
     * (address 0 discards it).
     *
     * @return false on a protocol error: the connection closes
     */
    boolean onHeader(Connection c, FrameHeader h);

    /**
     * The current frame's payload has been read.
     *
     * @param intact false when its target region closed while it streamed in: the rest was discarded
     */
    void onPayloadDone(Connection c, FrameHeader h, boolean intact);

    /**
     * Tells, without acting on it, where the payload of a frame further on in a batch would land if every
     * frame before it succeeds: lets one read fill several payloads. Must agree with what
     * {@link #onHeader} will decide for that frame in the same state.
     *
     * @param ahead how many frames after the current one {@code h} is (1 = the next)
     * @return the region that would take {@code h}'s payload at {@code h.raddr}, or null when that cannot be
     *     told now (the frame is then handled on its own)
     */
    default SoftMr previewWrite(Connection c, FrameHeader h, int ahead) {
      return null;
    }

    /** @return true when the handler can take another frame now (else reading pauses) */
    boolean canReceive();

    /** Appends frames with {@link #append} until it has nothing more or {@code append} returns false. */
    void fillTx(Connection c);

    /** The connection closed (by either side, or by an error). */
    void onClosed(Connection c);

    /** Called by the NIC before it handles the connection's events; pairs with {@link #exit()}. */
    default void enter() {}

    /** Called by the NIC after it handled the connection's events. */
    default void exit() {}
  }

  /** Staging for outgoing headers and small payloads. */
  private static final int TX_BYTES = 64 * 1024;
  /**
   * Receive staging: small, so that a read that brings in a header pulls little payload along (that part
   * is copied); the rest of a large payload is read straight into the target memory.
   */
  private static final int RX_BYTES = 8 * 1024;
  /** Payloads up to this size travel inside the batch block, right after their header. */
  private static final int SMALL_PAYLOAD = 16 * 1024;
  /** Most entries in one gathering write: the batch block, then payload windows. */
  private static final int MAX_IOV = 64;
  /** Most later payloads of a batch filled by the read that ends the current one. */
  private static final int MAX_CHAIN = 16;
  /** Large-payload bytes after which a gathering write takes no further frame. */
  private static final long GATHER_BYTES = 1024 * 1024;
  private static final int DIRECT_READ_MIN = 2 * 1024;
  /**
   * Socket reads per readiness event: then the responses so far go out (ACKs flow while a long stream comes
   * in) and other connections get their turn; level-triggered selection brings the NIC back.
   */
  private static final int READS_PER_WAKEUP = 16;
  private static final int HEADER = 0;
  private static final int PAYLOAD = 1;
  private static final int DIRECT = 2;
  private static final int BLOCK = 3;

  private final Nic nic;
  private final SocketChannel channel;
  private final SelectionKey key;
  private Handler handler;
  private boolean connected;
  private boolean closed;
  private int interest;
  private boolean readPaused;

  private final ByteBuffer rx = ByteBuffer.allocateDirect(RX_BYTES);
  private final long rxAddress = DirectMemory.address(rx);
  private final FrameHeader header = new FrameHeader();
  private int rxConsumed;
  private int readState = HEADER;
  private long payloadAddress;
  private long payloadRemaining;
  /** Holds the target region (and so its memory) reachable while the payload streams into it. */
  private SoftMr payloadRegion;
  /** The target region closed under the current payload: its remaining bytes are being discarded. */
  private boolean payloadLost;
  private ByteBuffer payloadView;
  private final NativeWindow rxWindow = new NativeWindow();
  /** The current payload travels inside the batch block. */
  private boolean payloadInline;

  /** The block of a batch being handled: its headers and small payloads (large payloads follow it). */
  private final ByteBuffer block = ByteBuffer.allocateDirect(TX_BYTES);
  private final long blockAddress = DirectMemory.address(block);
  /** [rest of the block, {@link #rx}]. */
  private final ByteBuffer[] blockScatter = {block, rx};
  /** Headers come from {@link #block}, at {@link #blockPos}, up to {@link #blockLimit}. */
  private boolean inBatch;
  private int blockPos;
  private int blockLimit;
  /** Where in {@link #block} the current header was, or -1 when it came from the stream. */
  private int headerAt = -1;
  private final FrameHeader peek = new FrameHeader();
  /**
   * The read that ends the current payload: [rest of it, later payloads of the batch as far as
   * {@link Handler#previewWrite} vouches for them, {@link #rx}].
   */
  private final ByteBuffer[] scatter = new ByteBuffer[MAX_CHAIN + 2];
  private final NativeWindow[] chainWindows = new NativeWindow[MAX_CHAIN];
  private final SoftMr[] chainRegion = new SoftMr[MAX_CHAIN];
  /** Later payloads that already received bytes: target, header position in the block, bytes landed. */
  private final long[] chainAddress = new long[MAX_CHAIN];
  private final int[] chainHeaderAt = new int[MAX_CHAIN];
  private final int[] chainLanded = new int[MAX_CHAIN];
  private int chainHead;
  private int chainCount;

  private final ByteBuffer tx = ByteBuffer.allocateDirect(TX_BYTES);
  private final long txAddress = DirectMemory.address(tx);
  /**
   * The gathering write being built or drained: {@link #tx} (a BATCH header, then the frames' headers and
   * small payloads), then windows over the large payloads, so many frames leave in one {@code writev}.
   */
  private final ByteBuffer[] gather = new ByteBuffer[MAX_IOV];
  /** The source region of each large-payload entry of {@link #gather} (null for {@link #tx}). */
  private final SoftMr[] gatherRegion = new SoftMr[MAX_IOV];
  /** The view of {@link #tx} in {@link #gather}. */
  private final ByteBuffer txRun = tx.duplicate();
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

  private Connection(Nic nic, SocketChannel channel, Handler handler, boolean connected, int ops)
      throws IOException {
    this.nic = nic;
    this.channel = channel;
    this.handler = handler;
    this.connected = connected;
    this.interest = ops;
    for (int i = 0; i < payloadWindows.length; i++) {
      payloadWindows[i] = new NativeWindow();
    }
    for (int i = 0; i < chainWindows.length; i++) {
      chainWindows[i] = new NativeWindow();
    }
    tx.position(FrameHeader.SIZE); // room for the BATCH header
    this.key = channel.register(nic.selector(), ops, this);
  }

  /** Wraps an accepted channel (NIC thread). */
  static Connection accepted(Nic nic, SocketChannel channel, Handler handler) throws IOException {
    configure(channel, nic.socketBufferBytes());
    return new Connection(nic, channel, handler, true, SelectionKey.OP_READ);
  }

  /**
   * Starts a non-blocking connect from {@code local} (port 0) to {@code remote} (NIC thread). The caller
   * calls {@link #pumpTx()} once it has stored the connection (the connect may already be complete).
   */
  static Connection connect(Nic nic, InetSocketAddress local, InetSocketAddress remote, Handler handler)
      throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      configure(ch, nic.socketBufferBytes());
      ch.bind(local);
      boolean done = ch.connect(remote);
      return new Connection(nic, ch, handler, done, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  private static void configure(SocketChannel ch, int bufferBytes) throws IOException {
    ch.configureBlocking(false);
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    if (bufferBytes > 0) {
      ch.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
      ch.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
    }
  }

  void setHandler(Handler handler) {
    this.handler = handler;
  }

  boolean isClosed() {
    return closed;
  }

  boolean isConnected() {
    return connected && !closed;
  }

  /**
   * Closes the connection from outside its own dispatch (NIC thread: port down, device death, shutdown), under
   * its handler's lock like {@link #onSelected}: a poster may be inside {@link #pumpTx()} on this connection
   * (the requester's fast path), and closing under it would clear the gather while its source regions are held,
   * so they would never be released and their {@code MemoryRegion.close()} would wait forever.
   */
  void closeFromNic() {
    Handler h = handler;
    h.enter();
    try {
      close();
    } finally {
      h.exit();
    }
  }

  /** Dispatches the selector's ready operations (NIC thread). */
  void onSelected(int readyOps) {
    Handler h = handler;
    h.enter();
    try {
      handleReady(readyOps);
    } finally {
      h.exit();
    }
  }

  private void handleReady(int readyOps) {
    try {
      if ((readyOps & SelectionKey.OP_CONNECT) != 0) {
        channel.finishConnect();
        connected = true;
        setInterest(SelectionKey.OP_READ);
        pumpTx();
      }
      if (!closed && (readyOps & SelectionKey.OP_READ) != 0) {
        onReadable();
      }
      // frames just read may have produced responses or freed send credits: send in the same wake-up
      if (!closed) {
        pumpTx();
      }
    } catch (IOException | RuntimeException e) {
      nic.device().logConnectionFailure(this, e);
      close();
    }
  }

  // ---- receive ----

  /**
   * Sets where the current frame's payload goes.
   *
   * @param address target address, or 0 to discard the payload
   * @param length payload length (unsigned)
   * @param region the registered region that holds the target, or null
   */
  void expectPayload(long address, int length, SoftMr region) {
    long len = length & 0xffffffffL;
    payloadInline = inBatch && len <= SMALL_PAYLOAD;
    payloadRegion = region;
    payloadLost = false;
    payloadAddress = address;
    payloadRemaining = len;
    readState = PAYLOAD;
    if (chainHead < chainCount && chainHeaderAt[chainHead] == headerAt) {
      // the payload's head came with the read that ended an earlier one, into the previewed target (the
      // entry is dropped once the handler has its header: it may call this more than once)
      int landed = chainLanded[chainHead];
      long previewed = chainAddress[chainHead];
      payloadRemaining -= landed;
      if (address == previewed) {
        payloadAddress = address + landed;
      } else if (address != 0) {
        losePayload(payloadRemaining); // it cannot be completed where the handler wants it
      }
    }
  }

  private void onReadable() throws IOException {
    int reads = 0;
    boolean socketMayHaveMore = true;
    while (!closed && !readPaused) {
      if (readState == DIRECT) {
        if (!socketMayHaveMore || reads++ == READS_PER_WAKEUP) {
          return; // drained (a read now would return nothing), or time to send the responses so far
        }
        SoftMr region = payloadRegion;
        if (region != null && !region.acquire()) {
          losePayload(payloadView.remaining());
          continue;
        }
        // rx is empty here: one read takes the rest of the payload, the later payloads of the batch that can
        // be told now, and what follows them (the next headers)
        int chained = 0;
        long n;
        try {
          chained = inBatch ? chainPayloads() : 0;
          rx.clear();
          rxConsumed = 0;
          scatter[0] = payloadView;
          scatter[chained + 1] = rx;
          n = channel.read(scatter, 0, chained + 2);
        } finally {
          if (region != null) {
            region.release();
          }
          for (int i = 0; i < chained; i++) {
            chainRegion[i].release();
            chainRegion[i] = null;
          }
        }
        if (n < 0) {
          close();
          return;
        }
        keepLanded(chained);
        if (payloadView.hasRemaining()) {
          return;
        }
        payloadView = null;
        socketMayHaveMore = !rx.hasRemaining();
        finishPayload();
        continue;
      }
      int available = rx.position() - rxConsumed;
      if (readState == BLOCK) {
        if (available > 0) {
          int n = Math.min(available, block.remaining());
          DirectMemory.copy(rxAddress + rxConsumed, blockAddress + block.position(), n);
          block.position(block.position() + n);
          rxConsumed += n;
        } else if (socketMayHaveMore && reads++ < READS_PER_WAKEUP) {
          rx.clear();
          rxConsumed = 0;
          if (channel.read(blockScatter) < 0) {
            close();
            return;
          }
          if (block.hasRemaining()) {
            return;
          }
          socketMayHaveMore = !rx.hasRemaining();
        } else {
          return;
        }
        if (!block.hasRemaining()) {
          inBatch = true;
          blockPos = 0;
          blockLimit = block.limit();
          readState = HEADER;
        }
        continue;
      }
      if (readState == HEADER && inBatch && blockPos == blockLimit) {
        inBatch = false;
      }
      if (readState == HEADER && (inBatch || available >= FrameHeader.SIZE)) {
        if (!handler.canReceive()) {
          pauseReading();
          return;
        }
        if (inBatch) {
          if (blockLimit - blockPos < FrameHeader.SIZE || !header.decode(block, blockPos)
              || header.opcode == FrameHeader.BATCH) {
            protocolError("bad frame in batch");
            return;
          }
          headerAt = blockPos;
          blockPos += FrameHeader.SIZE;
        } else {
          if (!header.decode(rx, rxConsumed)) {
            protocolError("bad magic");
            return;
          }
          rxConsumed += FrameHeader.SIZE;
          headerAt = -1;
          if (header.opcode == FrameHeader.BATCH) {
            if (header.length < FrameHeader.SIZE || header.length > block.capacity()) {
              protocolError("batch of " + (header.length & 0xffffffffL) + " bytes");
              return;
            }
            block.clear().limit(header.length);
            chainHead = 0;
            chainCount = 0;
            readState = BLOCK;
            continue;
          }
        }
        if (!handler.onHeader(this, header)) {
          protocolError("rejected " + describe(header));
          return;
        }
        if (chainHead < chainCount && chainHeaderAt[chainHead] == headerAt) {
          chainHead++;
        }
        if (readState == PAYLOAD && payloadRemaining == 0) {
          finishPayload();
        }
        continue;
      }
      if (readState == PAYLOAD && payloadInline) {
        int n = (int) payloadRemaining;
        if (blockLimit - blockPos < n) {
          protocolError("payload beyond its batch");
          return;
        }
        if (payloadAddress != 0 && !copy(payloadRegion, blockAddress + blockPos, payloadAddress, n)) {
          payloadLost = true;
        }
        blockPos += n;
        payloadRemaining = 0;
        finishPayload();
        continue;
      }
      if (readState == PAYLOAD) {
        if (available > 0) {
          int n = (int) Math.min(available, payloadRemaining);
          if (payloadAddress != 0) {
            if (!copy(payloadRegion, rxAddress + rxConsumed, payloadAddress, n)) {
              losePayload(payloadRemaining);
              continue;
            }
            payloadAddress += n;
          }
          rxConsumed += n;
          payloadRemaining -= n;
          if (payloadRemaining == 0) {
            finishPayload();
          }
          continue;
        }
        if (payloadAddress != 0 && payloadRemaining >= DIRECT_READ_MIN) {
          payloadView = rxWindow.window(payloadAddress, (int) payloadRemaining);
          readState = DIRECT;
          continue;
        }
      }
      if (!socketMayHaveMore || reads++ == READS_PER_WAKEUP) {
        return; // level-triggered: the selector calls again while bytes wait in the socket
      }
      if (rxConsumed == rx.position()) {
        rx.clear();
        rxConsumed = 0;
      } else if (rx.capacity() - rx.position() < FrameHeader.SIZE) {
        rx.limit(rx.position()).position(rxConsumed);
        rx.compact();
        rxConsumed = 0;
      }
      int space = rx.remaining();
      int n = channel.read(rx);
      if (n < 0) {
        close();
        return;
      }
      if (n == 0) {
        return;
      }
      socketMayHaveMore = n == space; // a short read drained the socket: skip the read that would return 0
    }
  }

  /**
   * Adds to {@link #scatter} (from index 1) the large payloads of the frames that follow the current one in
   * the batch, as long as the handler vouches for them; holds each one's region.
   *
   * @return how many were added
   */
  private int chainPayloads() {
    int chained = 0;
    int at = blockPos;
    int ahead = 1;
    while (chained < MAX_CHAIN && blockLimit - at >= FrameHeader.SIZE && peek.decode(block, at)) {
      SoftMr region = handler.previewWrite(this, peek, ahead);
      long len = peek.length & 0xffffffffL;
      if (region == null) {
        break;
      }
      if (len <= SMALL_PAYLOAD) { // it travels in the block: nothing to read, but later frames depend on it
        at += FrameHeader.SIZE + (int) len;
        ahead++;
        continue;
      }
      if (!region.acquire()) {
        break;
      }
      chainRegion[chained] = region;
      chainAddress[chained] = peek.raddr;
      chainHeaderAt[chained] = at;
      scatter[chained + 1] = chainWindows[chained].window(peek.raddr, (int) len);
      chained++;
      at += FrameHeader.SIZE;
      ahead++;
    }
    return chained;
  }

  /** Keeps the chained payloads that received bytes (they fill in order); forgets the rest. */
  private void keepLanded(int chained) {
    chainHead = 0;
    chainCount = 0;
    for (int i = 0; i < chained; i++) {
      int landed = scatter[i + 1].position();
      if (landed > 0) {
        chainLanded[chainCount++] = landed;
      }
      scatter[i + 1] = null;
    }
    scatter[chained + 1] = null;
  }

  /**
   * Copies {@code n} bytes under {@code region}'s guard.
   *
   * @param region the registered region that holds {@code src} or {@code dst}, or null when neither is one
   * @return false, having copied nothing, when the region is closed
   */
  private static boolean copy(SoftMr region, long src, long dst, int n) {
    if (region != null && !region.acquire()) {
      return false;
    }
    try {
      DirectMemory.copy(src, dst, n);
    } finally {
      if (region != null) {
        region.release();
      }
    }
    return true;
  }

  /** The target region closed: the payload's {@code remaining} bytes go nowhere, the stream stays in sync. */
  private void losePayload(long remaining) {
    payloadLost = true;
    payloadRegion = null;
    payloadView = null;
    payloadAddress = 0;
    payloadRemaining = remaining;
    readState = PAYLOAD;
  }

  private void finishPayload() {
    boolean intact = !payloadLost;
    readState = HEADER;
    payloadLost = false;
    payloadRegion = null;
    handler.onPayloadDone(this, header, intact);
  }

  private void pauseReading() {
    readPaused = true;
    setInterest(interest & ~SelectionKey.OP_READ);
  }

  /** Resumes reading after {@link Handler#canReceive()} said no, processing buffered frames (NIC thread). */
  void resumeReading() {
    if (readPaused && !closed) {
      readPaused = false;
      setInterest(interest | SelectionKey.OP_READ);
      try {
        onReadable();
      } catch (IOException | RuntimeException e) {
        nic.device().logConnectionFailure(this, e);
        close();
      }
    }
  }

  private void protocolError(String what) {
    nic.device().logProtocolError(this, what);
    close();
  }

  // ---- send ----

  /**
   * Appends one frame (NIC thread, from {@link Handler#fillTx}). Frames queue up in one gathering write
   * until it is full; nothing is written before {@code fillTx} returns.
   *
   * @param payloadAddress source of the payload (ignored when {@code payloadLength} is 0)
   * @param payloadLength payload bytes that follow the header
   * @param region the registered region that holds the payload, or null
   * @return false when there is no room now (the handler is asked again once the write drains), or when
   *     {@code region} is closed (the connection then aborts)
   */
  boolean append(int opcode, int status, int qpn, int seq, int rkey, long raddr, int length, int imm,
      long payloadAddress, int payloadLength, SoftMr region) {
    if (draining || sourceLost || tx.remaining() < FrameHeader.SIZE || gatherPayloadBytes >= GATHER_BYTES) {
      return false;
    }
    if (payloadLength <= SMALL_PAYLOAD) {
      if (tx.remaining() < FrameHeader.SIZE + payloadLength) {
        return false;
      }
      int payloadAt = tx.position() + FrameHeader.SIZE;
      if (payloadLength > 0 && !copy(region, payloadAddress, txAddress + payloadAt, payloadLength)) {
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
   * Puts {@link #tx} in front of the payload windows: as is when there are none, else announced by a BATCH
   * header so the receiver knows every header before the payloads arrive.
   *
   * @return false when nothing was appended
   */
  private boolean sealGather() {
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
    return true;
  }

  /** @return true while a written frame still has bytes waiting for the socket */
  boolean hasPendingTx() {
    return draining;
  }

  /**
   * Writes what the handler has to send until the socket is full. NIC thread, or a posting thread that
   * holds the handler's lock (the write is non-blocking; what does not fit is left to the NIC).
   */
  void pumpTx() {
    try {
      while (connected && !closed) {
        if (!draining) {
          handler.fillTx(this);
          if (sourceLost) {
            close();
            return;
          }
          if (!sealGather()) {
            setInterest(interest & ~SelectionKey.OP_WRITE);
            return;
          }
          draining = true;
        }
        if (!writeGather()) {
          close(); // a payload's region closed: its frame cannot be sent whole
          return;
        }
        if (gatherFirst < gatherCount) {
          setInterest(interest | SelectionKey.OP_WRITE);
          return;
        }
        resetGather();
      }
    } catch (IOException | RuntimeException e) {
      nic.device().logConnectionFailure(this, e);
      close();
    }
  }

  /**
   * One gathering write of what is left, with every source region in it held for the call.
   *
   * @return false, having written nothing, when one of those regions is closed
   */
  private boolean writeGather() throws IOException {
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

  private void resetGather() {
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

  private void setInterest(int ops) {
    if (ops != interest && key.isValid()) {
      interest = ops;
      key.interestOps(ops);
    }
  }

  /** Closes the socket and tells the handler, once (NIC thread). */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    key.cancel();
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing: nothing left to do with the socket
    }
    payloadView = null;
    payloadRegion = null;
    inBatch = false;
    chainHead = 0;
    chainCount = 0;
    resetGather();
    handler.onClosed(this);
  }

  static String describe(FrameHeader h) {
    return "frame[op=" + h.opcode + " qpn=" + h.qpn + " seq=" + h.seq + " len=" + (h.length & 0xffffffffL) + "]";
  }

  @Override
  public String toString() {
    try {
      return "conn[" + channel.getLocalAddress() + "->" + channel.getRemoteAddress() + "]";
    } catch (IOException | RuntimeException e) {
      return "conn[closed]";
    }
  }
}
