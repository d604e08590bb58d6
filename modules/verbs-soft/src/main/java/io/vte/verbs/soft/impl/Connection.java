package io.vte.verbs.soft.impl;

import io.vte.verbs.soft.impl.wire.AccessGate;
import io.vte.verbs.soft.impl.wire.FaultyWire;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.FrameReader;
import io.vte.verbs.soft.impl.wire.FrameReceiver;
import io.vte.verbs.soft.impl.wire.FrameWriter;
import io.vte.verbs.soft.impl.wire.OneThreadInside;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection of the soft NIC, driven by its NIC thread (a requester's input is read by its
 * send CQ's consumer while that polls, see {@link #setReadByPoller}): wires a {@link FrameReader}
 * (frames in) and a {@link FrameWriter} (frames out, through the device's {@link FaultyWire}) to
 * the socket, its selection key and the {@link Handler} that gives the frames their meaning
 * (requester, responder, or HELLO acceptor).
 *
 * <p>When a region closes under a frame, a payload coming in is read on and discarded (the handler
 * hears that it was lost), and a payload going out cannot be completed, so the connection is
 * aborted: the peer sees a lost stream and the requester starts over, meeting the closed region in
 * its checks.
 */
final class Connection implements FrameReceiver {

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
     * @param intact false when its target region closed while it streamed in: the rest was
     *     discarded
     */
    void onPayloadDone(Connection c, FrameHeader h, boolean intact);

    /**
     * Tells, without acting on it, where the payload of a frame further on in a batch would land if
     * every frame before it succeeds: lets one read fill several payloads. Must agree with what
     * {@link #onHeader} will decide for that frame in the same state.
     *
     * @param ahead how many frames after the current one {@code h} is (1 = the next)
     * @return the region that would take {@code h}'s payload at {@code h.raddr}, or null when that
     *     cannot be told now (the frame is then handled on its own)
     */
    default SoftMr previewWrite(Connection c, FrameHeader h, int ahead) {
      return null;
    }

    /**
     * @return the gate the payloads written into regions pass besides the regions' own (see {@link
     *     FrameReceiver#payloadGate()}), or null for none
     */
    default AccessGate payloadGate() {
      return null;
    }

    /**
     * @return true when the handler can take another frame now (else reading pauses)
     */
    boolean canReceive();

    /**
     * Appends frames with {@link #append} until it has nothing more or {@code append} returns
     * false.
     */
    void fillTx(Connection c);

    /** The connection closed (by either side, or by an error). */
    void onClosed(Connection c);

    /** Called by the NIC before it handles the connection's events; pairs with {@link #exit()}. */
    default void enter() {}

    /** Called by the NIC after it handled the connection's events. */
    default void exit() {}
  }

  private final Nic nic;
  private final SocketChannel channel;
  private final SelectionKey key;
  private final FrameReader reader;
  private final FrameWriter writer = new FrameWriter();

  /** What the handler's frames go through: the device's injected faults, then {@link #writer}. */
  private final FaultyWire wire;

  private Handler handler;

  /** Checks, with assertions on, that one thread at a time reads, writes or closes it. */
  private final OneThreadInside inside = new OneThreadInside();

  private boolean connected;
  private boolean closed;
  private int interest;
  private boolean readPaused;

  /** The consumer of the handler's CQ reads this connection, not the NIC thread (see SoftCq). */
  private boolean readByPoller;

  private Connection(Nic nic, SocketChannel channel, Handler handler, boolean connected, int ops)
      throws IOException {
    this.nic = nic;
    this.channel = channel;
    this.handler = handler;
    this.connected = connected;
    this.interest = ops;
    this.reader = new FrameReader(channel, this);
    this.wire =
        new FaultyWire(writer, nic.device().frameFaults(), System::nanoTime, nic::wantTimerAt);
    this.key = channel.register(nic.selector(), ops, this);
    nic.connectionsChanged(1);
  }

  /** Wraps an accepted channel (NIC thread). */
  static Connection accepted(Nic nic, SocketChannel channel, Handler handler) throws IOException {
    configure(channel, nic.socketBufferBytes());
    return new Connection(nic, channel, handler, true, SelectionKey.OP_READ);
  }

  /**
   * Starts a non-blocking connect from {@code local} (port 0) to {@code remote} (NIC thread). The
   * caller calls {@link #pumpTx()} once it has stored the connection (the connect may already be
   * complete).
   */
  static Connection connect(
      Nic nic, InetSocketAddress local, InetSocketAddress remote, Handler handler)
      throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      configure(ch, nic.socketBufferBytes());
      ch.bind(local);
      boolean done = ch.connect(remote);
      return new Connection(
          nic, ch, handler, done, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
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
   * Closes the connection from outside its own dispatch (NIC thread: port down, device death,
   * shutdown), under its handler's lock like {@link #onSelected}: a poster may be inside {@link
   * #pumpTx()} on this connection (the requester's fast path), and closing under it would clear the
   * gather while its source regions are held, so they would never be released and their {@code
   * MemoryRegion.close()} would wait forever.
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

  /**
   * Dispatches the selector's ready operations (NIC thread). They are read under the handler's lock
   * and only while the connection is open: the CQ's consumer reading the connection may close it
   * (and cancel its key) after the selector picked the key, and a cancelled key throws on every
   * read of its ready set.
   */
  void onSelected() {
    Handler h = handler;
    h.enter();
    try {
      if (!closed) {
        handleReady(key.readyOps());
      }
    } finally {
      h.exit();
    }
  }

  private void handleReady(int readyOps) {
    assert inside.enter(
        this); // under the handler's lock, as every entry that may meet another thread
    try {
      handleReadyInside(readyOps);
    } finally {
      assert inside.leave();
    }
  }

  private void handleReadyInside(int readyOps) {
    try {
      if ((readyOps & SelectionKey.OP_CONNECT) != 0) {
        channel.finishConnect();
        connected = true;
        setInterest(SelectionKey.OP_READ);
        pumpTx();
      }
      if (!closed && !readPaused && (readyOps & SelectionKey.OP_READ) != 0) {
        onReadable();
      }
      // frames just read may have produced responses or freed credits: send in this wake-up
      if (!closed) {
        pumpTx();
      }
    } catch (IOException | RuntimeException e) {
      nic.device().log().connectionFailure(this, e);
      close();
    }
  }

  // ---- receive ----

  /**
   * Sets where the current frame's payload goes (from {@link Handler#onHeader}).
   *
   * @param address target address, or 0 to discard the payload
   * @param length payload length (unsigned)
   * @param region the registered region that holds the target, or null
   */
  void expectPayload(long address, int length, SoftMr region) {
    reader.expectPayload(address, length, region);
  }

  private void onReadable() throws IOException {
    switch (reader.read()) {
      case PAUSED -> pauseReading();
      case END_OF_STREAM -> close();
      case PROTOCOL_ERROR -> {
        nic.device().log().protocolError(this, reader.error().message());
        close();
      }
      case WAIT, CLOSED -> {
        // the selector calls again while bytes wait in the socket
      }
    }
  }

  @Override
  public boolean canReceive() {
    return handler.canReceive();
  }

  @Override
  public boolean onHeader(FrameHeader h) {
    return handler.onHeader(this, h);
  }

  @Override
  public void onPayloadDone(FrameHeader h, boolean intact) {
    handler.onPayloadDone(this, h, intact);
  }

  @Override
  public SoftMr previewWrite(FrameHeader h, int ahead) {
    return handler.previewWrite(this, h, ahead);
  }

  @Override
  public AccessGate payloadGate() {
    return handler.payloadGate();
  }

  /**
   * @return true while the consumer of the handler's CQ reads this connection in place of the NIC
   *     thread
   */
  boolean isReadByPoller() {
    return readByPoller;
  }

  /**
   * Gives the reading of this connection to the consumer of the handler's CQ, or back to the NIC
   * thread (either thread, under the handler's lock): the NIC's selector stops or resumes watching
   * the socket for input. Only a connected connection changes hands.
   */
  void setReadByPoller(boolean byPoller) {
    if (readByPoller == byPoller || !isConnected()) {
      return;
    }
    readByPoller = byPoller;
    setInterest(readPaused ? interest : interest | SelectionKey.OP_READ); // masked while by poller
  }

  /**
   * Reads and handles what waits in the socket (the consumer of the handler's CQ while it reads the
   * connection, or the NIC thread taking it back; under the handler's lock).
   */
  void readWaiting() {
    assert inside.enter(this);
    try {
      readWaitingInside();
    } finally {
      assert inside.leave();
    }
  }

  private void readWaitingInside() {
    if (closed || readPaused) {
      return;
    }
    try {
      onReadable();
    } catch (IOException | RuntimeException e) {
      nic.device().log().connectionFailure(this, e);
      close();
    }
  }

  private void pauseReading() {
    readPaused = true;
    setInterest(interest & ~SelectionKey.OP_READ);
  }

  /**
   * Resumes reading after {@link Handler#canReceive()} said no, processing buffered frames (NIC
   * thread).
   */
  void resumeReading() {
    if (readPaused && !closed) {
      readPaused = false;
      setInterest(interest | SelectionKey.OP_READ);
      readWaiting();
    }
  }

  // ---- send ----

  /**
   * Appends one frame (NIC thread, from {@link Handler#fillTx}), through the device's injected
   * faults. Frames queue up in one gathering write until it is full; nothing is written before
   * {@code fillTx} returns.
   *
   * @param payloadAddress source of the payload (ignored when {@code payloadLength} is 0)
   * @param payloadLength payload bytes that follow the header
   * @param region the registered region that holds the payload, or null
   * @return false when there is no room now (the handler is asked again once the write drains or a
   *     held frame's time has come), or when {@code region} is closed (the connection then aborts)
   */
  boolean append(
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
    return wire.append(
        opcode, status, qpn, seq, rkey, raddr, length, imm, payloadAddress, payloadLength, region);
  }

  /** True while a written frame still has bytes waiting for the socket. */
  boolean hasPendingTx() {
    return writer.isDraining();
  }

  /**
   * @return true when a posting thread (holding the handler's lock) may write on this connection
   *     now: it is connected, nothing waits for the socket, and no injected fault (NIC-thread
   *     state) is in force
   */
  boolean acceptsPosterWrites() {
    return isConnected() && !writer.isDraining() && wire.isQuiet();
  }

  /**
   * Timer check (NIC thread, under the handler's lock): sends again once a frame held by an
   * injected delay may go.
   *
   * @return the next time this connection wants a check, or {@code Long.MAX_VALUE}
   */
  long onTimer(long now) {
    if (wire.releaseIfDue(now)) {
      pumpTx();
    }
    return wire.holdUntil();
  }

  /**
   * Writes what the handler has to send until the socket is full. NIC thread, or a posting thread
   * that holds the handler's lock (the write is non-blocking; what does not fit is left to the
   * NIC).
   */
  void pumpTx() {
    assert inside.enter(this);
    try {
      pumpTxInside();
    } finally {
      assert inside.leave();
    }
  }

  private void pumpTxInside() {
    try {
      while (connected && !closed) {
        if (!writer.isDraining()) {
          handler.fillTx(this);
          if (writer.sourceLost()) {
            close();
            return;
          }
          if (!writer.seal()) {
            setInterest(interest & ~SelectionKey.OP_WRITE);
            return;
          }
        }
        if (!writer.write(channel)) {
          close(); // a payload's region closed: its frame cannot be sent whole
          return;
        }
        if (!writer.drained()) {
          setInterest(interest | SelectionKey.OP_WRITE);
          return;
        }
        writer.reset();
      }
    } catch (IOException | RuntimeException e) {
      nic.device().log().connectionFailure(this, e);
      close();
    }
  }

  private void setInterest(int requested) {
    int ops = readByPoller ? requested & ~SelectionKey.OP_READ : requested;
    if (ops != interest && key.isValid()) {
      interest = ops;
      key.interestOps(ops);
    }
  }

  /** Closes the socket and tells the handler, once (NIC thread). */
  void close() {
    assert inside.enter(this);
    try {
      closeInside();
    } finally {
      assert inside.leave();
    }
  }

  private void closeInside() {
    if (closed) {
      return;
    }
    closed = true;
    nic.connectionsChanged(-1);
    key.cancel();
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing: nothing left to do with the socket
    }
    reader.close();
    writer.reset();
    handler.onClosed(this);
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
