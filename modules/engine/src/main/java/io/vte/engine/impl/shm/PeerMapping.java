package io.vte.engine.impl.shm;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SharedMemoryDesc;
import io.vte.verbs.DirectMemory;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A same-host peer's shared-memory buffer, mapped here: the requester side of the shared-memory
 * rail. {@link #attach} proves the peer shares the file (same boot id and user, the file owned by
 * that user, its header holding the nonce the peer's descriptor carries) before mapping it; {@link
 * #copy} moves one slice under a copier lock ({@link CopierLocks}), so that the owner's revocation
 * waits for it or refuses it; a copier thread keeps its lock for its next copies into the same
 * buffer ({@link KeptHold}). Thread-safe; the mapping lives as long as this object is reachable.
 */
final class PeerMapping {

  /** How often the owner's process is looked for (a look is a /proc read). */
  static final long LIVENESS_PERIOD_NANOS = 10_000_000L;

  /** How a copy ended. */
  enum Outcome {
    /** Copied. */
    OK,
    /** The owner revoked the buffer (unregistered it or closed). */
    REVOKED,
    /** The owner's process is gone. */
    OWNER_DEAD,
    /** The mapping faulted: the file was truncated under it. */
    FAULT,
    /** Copied, but the destination's CRC32C differs from the source's ({@link CopyCheck}). */
    CORRUPTED
  }

  private final Path path;
  private final FileChannel channel;
  private final MappedByteBuffer mapping;
  private final SharedMemoryHeader header;
  private final long remoteAddress;
  private final long length;
  private final long dataAddress;
  private final long ownerPid;
  private volatile long aliveCheckedAt;

  private PeerMapping(
      Path path, FileChannel channel, MappedByteBuffer mapping, long remoteAddress, long length) {
    this.path = path;
    this.channel = channel;
    this.mapping = mapping;
    this.header = new SharedMemoryHeader(mapping);
    this.remoteAddress = remoteAddress;
    this.length = length;
    this.dataAddress = DirectMemory.address(mapping) + SharedMemoryHeader.SIZE;
    this.ownerPid = header.ownerPid();
    this.aliveCheckedAt = System.nanoTime();
  }

  /**
   * Maps a peer's buffer after proving that the peer shares it. Blocking file I/O.
   *
   * @param shm the buffer's shared-memory description, from the peer's descriptor
   * @param remoteAddress the buffer's address in the peer's descriptor
   * @param length the buffer's length in the peer's descriptor
   * @param self this process
   * @return the mapping
   * @throws VteException PERMISSION_DENIED when the peer or the file belongs to another user,
   *     PEER_UNREACHABLE when the peer is not proved to be on this host or is dead, TRANSFER_FAILED
   *     when the file does not hold the buffer described (removed, replaced, truncated)
   */
  static PeerMapping attach(
      SharedMemoryDesc shm, long remoteAddress, long length, HostIdentity self) {
    String where = "shared memory " + shm.getPath();
    if (!self.isKnown() || !self.bootId().equals(shm.getBootId())) {
      throw new VteException(
          ErrorCode.PEER_UNREACHABLE,
          where + " is on host boot id '" + shm.getBootId() + "', this is '" + self.bootId() + "'");
    }
    if (Integer.toUnsignedLong(shm.getUid()) != self.uid()) {
      throw new VteException(
          ErrorCode.PERMISSION_DENIED,
          where
              + " belongs to user "
              + Integer.toUnsignedLong(shm.getUid())
              + ", this process runs as "
              + self.uid());
    }
    if (shm.getDataOffset() != SharedMemoryHeader.SIZE) {
      throw new VteException(
          ErrorCode.TRANSFER_FAILED, where + " has data at offset " + shm.getDataOffset());
    }
    Path path = Path.of(shm.getPath());
    long total = SharedMemoryHeader.SIZE + length;
    FileChannel channel = null;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
      long fileUid = HostIdentity.ownerUid(path);
      if (fileUid != self.uid()) {
        throw new VteException(
            ErrorCode.PERMISSION_DENIED,
            where + " is owned by user " + fileUid + ", this process runs as " + self.uid());
      }
      if (channel.size() < total) {
        throw new VteException(
            ErrorCode.TRANSFER_FAILED,
            where
                + " has "
                + channel.size()
                + " bytes, the buffer needs "
                + total
                + " (truncated under the rail)");
      }
      MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, total);
      PeerMapping mapped = new PeerMapping(path, channel, mapping, remoteAddress, length);
      mapped.checkHeader(shm.getNonce().toByteArray());
      return mapped;
    } catch (IOException | UnsupportedOperationException e) {
      SharedMemoryFile.closeQuietly(channel);
      throw new VteException(ErrorCode.TRANSFER_FAILED, "cannot map " + where + ": " + e, e);
    } catch (InternalError e) {
      SharedMemoryFile.closeQuietly(channel);
      throw new VteException(ErrorCode.TRANSFER_FAILED, where + " faulted: truncated?", e);
    } catch (VteException e) {
      SharedMemoryFile.closeQuietly(channel);
      throw e;
    }
  }

  /** Closes the file; call only once no copy uses this mapping (the mapping itself stays). */
  void close() {
    SharedMemoryFile.closeQuietly(channel);
  }

  private void checkHeader(byte[] nonce) {
    String where = "shared memory " + path;
    if (header.magic() != SharedMemoryHeader.MAGIC || !header.hasNonce(nonce)) {
      throw new VteException(
          ErrorCode.TRANSFER_FAILED, where + " is not the buffer the peer describes (replaced?)");
    }
    if (header.dataLength() != length) {
      throw new VteException(
          ErrorCode.TRANSFER_FAILED,
          where + " holds " + header.dataLength() + " bytes, the peer describes " + length);
    }
    if (!ProcessLiveness.isAlive(ownerPid)) {
      throw new VteException(
          ErrorCode.PEER_UNREACHABLE, where + ": its owner, process " + ownerPid + ", is gone");
    }
  }

  /**
   * Copies one slice between local memory and the peer's buffer, under the copier lock the calling
   * thread keeps in {@code kept} (taken here when it holds none on this buffer, released here when
   * the copy does not end OK). Never throws for a fault of the mapping (a truncated file): that is
   * {@link Outcome#FAULT}.
   *
   * @param read true to copy from the peer's buffer into local memory
   * @param localAddress local native address
   * @param remote the peer's address (as in its descriptor), inside this buffer
   * @param bytes bytes, positive
   * @param check the copier thread's end-to-end check
   * @param kept the copier thread's kept copier lock
   * @return how it ended
   */
  Outcome copy(
      boolean read, long localAddress, long remote, int bytes, CopyCheck check, KeptHold kept) {
    if (remote < remoteAddress || remote - remoteAddress > length - bytes) {
      // the submitter checked the range against the same descriptor
      throw new IllegalArgumentException(
          "0x" + Long.toHexString(remote) + "+" + bytes + " is outside " + this);
    }
    long now = System.nanoTime();
    if (now - aliveCheckedAt > LIVENESS_PERIOD_NANOS) {
      if (!ProcessLiveness.isAlive(ownerPid)) {
        kept.release();
        return Outcome.OWNER_DEAD;
      }
      aliveCheckedAt = now;
    }
    if (!kept.reuse(this)) {
      CopierLocks.Hold hold;
      try {
        hold = CopierLocks.copier(path.toString(), channel);
      } catch (IOException e) {
        // the record lock needs the file open: closed by the engine's close
        return Outcome.FAULT;
      }
      if (hold == null) {
        return Outcome.REVOKED;
      }
      kept.keep(this, hold);
    }
    Outcome outcome = Outcome.FAULT;
    try {
      if (!header.isOpen()) {
        // a truncated page can read as zero before its fault arrives: not a revoke then
        outcome = truncated() ? Outcome.FAULT : Outcome.REVOKED;
        return outcome;
      }
      long peer = dataAddress + (remote - remoteAddress);
      long src = read ? peer : localAddress;
      long dst = read ? localAddress : peer;
      int crc = check.sourceCrc(src, bytes);
      DirectMemory.copy(src, dst, bytes);
      outcome = check.landed(dst, bytes, crc) ? Outcome.OK : Outcome.CORRUPTED;
      return outcome;
    } catch (InternalError e) {
      // HotSpot turns SIGBUS in an Unsafe access into this error
      return Outcome.FAULT;
    } finally {
      if (outcome != Outcome.OK) {
        kept.release();
      }
      Reference.reachabilityFence(mapping);
    }
  }

  private boolean truncated() {
    try {
      return channel.size() < SharedMemoryHeader.SIZE + length;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * @return the file
   */
  Path path() {
    return path;
  }

  @Override
  public String toString() {
    return "PeerMapping[" + path + " 0x" + Long.toHexString(remoteAddress) + "+" + length + "]";
  }

  /**
   * A copier thread's copier lock on the buffer it copied into last, kept for its next copies into
   * the same buffer: taking and releasing a record lock are two system calls, dearer than a 64 KiB
   * copy. The thread releases it before it waits for work, and renews it after {@link #MAX_COPIES}
   * copies, so a revocation waits for at most that many copies. Confined to its copier thread.
   */
  static final class KeptHold {

    /** Copies one lock serves before it is renewed. */
    static final int MAX_COPIES = 16;

    private PeerMapping mapping;
    private CopierLocks.Hold hold;
    private int copies;

    /**
     * @param target the buffer of the next copy
     * @return true when the kept lock is on {@code target} and may serve one more copy (counted);
     *     false after releasing any other lock
     */
    boolean reuse(PeerMapping target) {
      if (hold != null && mapping == target && copies < MAX_COPIES) {
        copies++;
        return true;
      }
      release();
      return false;
    }

    private void keep(PeerMapping target, CopierLocks.Hold taken) {
      mapping = target;
      hold = taken;
      copies = 1;
    }

    /** Releases the kept lock, if any. */
    void release() {
      CopierLocks.Hold held = hold;
      hold = null;
      mapping = null;
      if (held != null) {
        held.close();
      }
    }
  }
}
