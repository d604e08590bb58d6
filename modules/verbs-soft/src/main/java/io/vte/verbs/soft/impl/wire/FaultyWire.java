package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.DirectMemory;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.soft.impl.SoftMr;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The injected frame faults of a device ({@link FrameFaults}) applied to what one connection sends:
 * a decorator of its {@link FrameSink}, so the requester and responder only send and never ask
 * about faults. A dropped frame is taken and never written (the sender counts it sent, as a packet
 * lost on the wire). A delayed request frame holds the connection's requests (it and every one
 * behind it) until its time has come and {@link #releaseIfDue} is called from the timer, then goes
 * without being picked for a delay again. HELLO frames are never touched; responses may be dropped,
 * not delayed. A payload picked for corruption (a WRITE's, a READ response's) is sent from a copy
 * with one bit flipped, as a link would damage it after the sender computed its checksum.
 *
 * <p>Consulted on the NIC thread only: while faults are in force ({@link #isQuiet()} false),
 * posting threads leave the sending to the NIC.
 */
public final class FaultyWire implements FrameSink {

  /**
   * Damaged payload copies kept alive: more than the payload windows one gathering write of the
   * {@link FrameWriter} can point at, so a copy is reused only once no write refers to it.
   */
  private static final int DAMAGED_KEPT = 64;

  private final FrameSink wire;
  private final ByteBuffer[] damaged = new ByteBuffer[DAMAGED_KEPT];
  private int nextDamaged;
  private final FrameFaults faults;
  private final LongSupplier clock;
  private final LongConsumer wakeAt;
  private boolean holding;
  private long holdUntil;

  /** The request frame that waited out a hold goes next without being picked for a delay again. */
  private boolean released;

  /**
   * @param wire where frames that are not dropped go
   * @param faults the device's fault settings and generator
   * @param clock nanosecond clock ({@code System::nanoTime})
   * @param wakeAt asks for a timer call at a nanosecond time, to end a hold
   */
  public FaultyWire(FrameSink wire, FrameFaults faults, LongSupplier clock, LongConsumer wakeAt) {
    this.wire = wire;
    this.faults = faults;
    this.clock = clock;
    this.wakeAt = wakeAt;
  }

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
    if (opcode == FrameHeader.HELLO) {
      return wire.append(
          opcode,
          status,
          qpn,
          seq,
          rkey,
          raddr,
          length,
          imm,
          payloadAddress,
          payloadLength,
          region);
    }
    boolean request = FrameHeader.isRequest(opcode);
    if (request) {
      if (holding) {
        return false;
      }
      if (!released) {
        long delay = faults.delayNanos();
        if (delay > 0) {
          holding = true;
          holdUntil = clock.getAsLong() + delay;
          wakeAt.accept(holdUntil);
          return false;
        }
      }
    }
    long bit =
        payloadLength > 0
                && (opcode == FrameHeader.READ_RESP || FrameHeader.requestHasPayload(opcode))
            ? faults.corruptBit(payloadLength)
            : -1;
    if (bit >= 0) {
      long copy = damagedCopy(payloadAddress, payloadLength, region, bit);
      if (copy != 0) {
        payloadAddress = copy;
        region = null;
      }
    }
    if (!faults.drop()
        && !wire.append(
            opcode,
            status,
            qpn,
            seq,
            rkey,
            raddr,
            length,
            imm,
            payloadAddress,
            payloadLength,
            region)) {
      return false;
    }
    if (request) {
      released = false;
    }
    return true;
  }

  /**
   * @return the address of a copy of the payload with {@code bit} flipped, or 0 when its region
   *     closed (the payload then goes as it is, and the connection aborts on it)
   */
  private long damagedCopy(long address, int length, SoftMr region, long bit) {
    ByteBuffer copy = damaged[nextDamaged];
    if (copy == null || copy.capacity() < length) {
      copy = ByteBuffer.allocateDirect(length);
      damaged[nextDamaged] = copy;
    }
    nextDamaged = (nextDamaged + 1) % DAMAGED_KEPT;
    long to = DirectMemory.address(copy);
    if (!GuardedAccess.copy(region, address, to, length)) {
      return 0;
    }
    PayloadFaults.flip(to, bit);
    return to;
  }

  /**
   * Ends a hold whose time has come (timer, NIC thread); the caller then sends again.
   *
   * @return true when a hold ended
   */
  public boolean releaseIfDue(long now) {
    if (!holding || now - holdUntil < 0) {
      return false;
    }
    holding = false;
    released = true;
    return true;
  }

  /**
   * @return when the hold in force ends, or {@code Long.MAX_VALUE} when none is
   */
  public long holdUntil() {
    return holding ? holdUntil : Long.MAX_VALUE;
  }

  /**
   * @return true when no fault is configured and no frame is held: a posting thread may send (under
   *     the handler's lock)
   */
  public boolean isQuiet() {
    return !holding && !faults.active();
  }
}
