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
 * their memory; many frames leave in one gathering write). What the frames mean is up to its {@link Handler}.
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
  private static final int SMALL_PAYLOAD = 16 * 1024;
  /** Most entries in one gathering write (headers runs and payload windows alternate). */
  private static final int MAX_IOV = 64;
  /** Large-payload bytes after which a gathering write takes no further frame. */
  private static final long GATHER_BYTES = 1024 * 1024;
  private static final int DIRECT_READ_MIN = 2 * 1024;
  private static final int READS_PER_WAKEUP = 32;
  private static final int HEADER = 0;
  private static final int PAYLOAD = 1;
  private static final int DIRECT = 2;

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
  /** [rest of the current payload, {@link #rx}]: the read that ends a payload also brings the next header. */
  private final ByteBuffer[] scatter = {null, rx};

  private final ByteBuffer tx = ByteBuffer.allocateDirect(TX_BYTES);
  private final long txAddress = DirectMemory.address(tx);
  /**
   * The gathering write being built or drained: runs of {@link #tx} (headers and small payloads) alternate
   * with windows over large payloads, so many frames leave in one {@code writev}.
   */
  private final ByteBuffer[] gather = new ByteBuffer[MAX_IOV];
  /** The source region of each large-payload entry of {@link #gather} (null for runs of {@link #tx}). */
  private final SoftMr[] gatherRegion = new SoftMr[MAX_IOV];
  /** Preallocated views of {@link #tx}, one per run. */
  private final ByteBuffer[] txRuns = new ByteBuffer[MAX_IOV / 2 + 1];
  private final NativeWindow[] payloadWindows = new NativeWindow[MAX_IOV / 2];
  private int gatherCount;
  /** First entry of {@link #gather} not fully written yet (while draining). */
  private int gatherFirst;
  private int runCount;
  private int windowCount;
  /** Start in {@link #tx} of the run not yet closed into {@link #gather}. */
  private int runStart;
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
    for (int i = 0; i < txRuns.length; i++) {
      txRuns[i] = tx.duplicate();
    }
    for (int i = 0; i < payloadWindows.length; i++) {
      payloadWindows[i] = new NativeWindow();
    }
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
    payloadRegion = region;
    payloadLost = false;
    payloadAddress = address;
    payloadRemaining = length & 0xffffffffL;
    readState = PAYLOAD;
  }

  private void onReadable() throws IOException {
    int reads = 0;
    boolean socketMayHaveMore = true;
    while (!closed && !readPaused) {
      if (readState == DIRECT) {
        if (!socketMayHaveMore) {
          return; // the last read drained the socket: a read now would return nothing
        }
        SoftMr region = payloadRegion;
        if (region != null && !region.acquire()) {
          losePayload(payloadView.remaining());
          continue;
        }
        // rx is empty here: one read takes the rest of the payload and what follows it (the next headers)
        rx.clear();
        rxConsumed = 0;
        scatter[0] = payloadView;
        long n;
        try {
          n = channel.read(scatter);
        } finally {
          if (region != null) {
            region.release();
          }
        }
        if (n < 0) {
          close();
          return;
        }
        if (payloadView.hasRemaining()) {
          return;
        }
        payloadView = null;
        scatter[0] = null;
        socketMayHaveMore = !rx.hasRemaining();
        finishPayload();
        continue;
      }
      int available = rx.position() - rxConsumed;
      if (readState == HEADER && available >= FrameHeader.SIZE) {
        if (!handler.canReceive()) {
          pauseReading();
          return;
        }
        if (!header.decode(rx, rxConsumed)) {
          protocolError("bad magic");
          return;
        }
        rxConsumed += FrameHeader.SIZE;
        if (!handler.onHeader(this, header)) {
          protocolError("rejected " + describe(header));
          return;
        }
        if (readState == PAYLOAD && payloadRemaining == 0) {
          finishPayload();
        }
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
    if (gatherCount + 3 > MAX_IOV) { // a header run, the window, and room for the run that may follow
      return false;
    }
    FrameHeader.encode(tx, opcode, status, qpn, seq, rkey, raddr, length, imm);
    closeRun();
    gatherRegion[gatherCount] = region;
    gather[gatherCount++] = payloadWindows[windowCount++].window(payloadAddress, payloadLength);
    gatherPayloadBytes += payloadLength;
    return true;
  }

  /** Adds the bytes staged in {@link #tx} since the last run to the gathering write. */
  private void closeRun() {
    int end = tx.position();
    if (end > runStart) {
      ByteBuffer run = txRuns[runCount++];
      run.limit(end).position(runStart);
      gatherRegion[gatherCount] = null;
      gather[gatherCount++] = run;
      runStart = end;
    }
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
          closeRun();
          if (gatherCount == 0) {
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
    runCount = 0;
    windowCount = 0;
    runStart = 0;
    gatherPayloadBytes = 0;
    tx.clear();
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
    scatter[0] = null;
    payloadRegion = null;
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
