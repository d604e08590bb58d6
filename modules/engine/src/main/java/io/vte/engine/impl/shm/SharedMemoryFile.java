package io.vte.engine.impl.shm;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeValidator;
import io.vte.verbs.DirectMemory;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A buffer in a shared-memory file that this engine created (mode 0600, under {@code /dev/shm}):
 * its header page ({@link SharedMemoryHeader}) and its data, mapped for the owner's life. Same-host
 * peers map the same file ({@link PeerMapping}) and copy into and out of the data directly. {@link
 * #revoke} ends every peer's access and removes the file; the mapping stays until the buffer is no
 * longer reachable, so the application's memory never disappears under it. Never truncated, so no
 * access through a mapping of it can fault while the owner lives.
 */
public final class SharedMemoryFile {

  /** Longest buffer one file holds: one mapping, less the header. */
  public static final long MAX_LENGTH = Integer.MAX_VALUE - SharedMemoryHeader.SIZE;

  /** Where the data starts in the file: after the header page. */
  public static final long DATA_OFFSET = SharedMemoryHeader.SIZE;

  /** How long a revocation waits for a live peer's copy in progress to leave the buffer. */
  static final long REVOKE_WAIT_NANOS = 5_000_000_000L;

  private static final String PREFIX = "vte-shm-";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path path;
  private final FileChannel channel;
  private final MappedByteBuffer mapping;
  private final SharedMemoryHeader header;
  private final byte[] nonce;
  private final long length;

  private SharedMemoryFile(
      Path path, FileChannel channel, MappedByteBuffer mapping, byte[] nonce, long length) {
    this.path = path;
    this.channel = channel;
    this.mapping = mapping;
    this.header = new SharedMemoryHeader(mapping);
    this.nonce = nonce;
    this.length = length;
  }

  /**
   * Creates, sizes, zero-fills (so every page is backed now, not at a first touch that could fail)
   * and maps a new file. Blocking file I/O: call on a worker.
   *
   * @param directory where (normally {@code /dev/shm})
   * @param length data bytes, 1..{@link #MAX_LENGTH}
   * @param owner this process
   * @return the file, open
   * @throws VteException INVALID_ARGUMENT naming a bad length, DEVICE_UNAVAILABLE when the file
   *     cannot be made (the directory's message included)
   */
  public static SharedMemoryFile create(Path directory, long length, HostIdentity owner) {
    if (length <= 0 || length > MAX_LENGTH) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "shared memory length must be 1.." + MAX_LENGTH + " bytes, got " + length);
    }
    byte[] nonce = new byte[HandshakeValidator.SHM_NONCE_LENGTH];
    RANDOM.nextBytes(nonce);
    Path path =
        directory.resolve(PREFIX + owner.pid() + "-" + HexFormat.of().formatHex(nonce, 0, 8));
    long total = SharedMemoryHeader.SIZE + length;
    FileChannel channel = null;
    try {
      Files.createFile(
          path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw");
      channel = file.getChannel();
      file.setLength(total);
      MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, total);
      // a page tmpfs cannot back faults here, as a typed error, not later in the application
      DirectMemory.fill(DirectMemory.address(mapping), total, (byte) 0);
      SharedMemoryFile created = new SharedMemoryFile(path, channel, mapping, nonce, length);
      created.header.initialize(owner.pid(), length, nonce);
      return created;
    } catch (IOException | UnsupportedOperationException | InternalError e) {
      closeQuietly(channel);
      deleteQuietly(path);
      throw new VteException(
          ErrorCode.DEVICE_UNAVAILABLE,
          "cannot create " + length + " bytes of shared memory at " + path + ": " + e,
          e);
    }
  }

  /**
   * Removes files of this user's dead VTE processes (killed before they could remove their own).
   *
   * @param directory where shared-memory files are made
   * @param uid this user
   */
  public static void removeOrphans(Path directory, long uid) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*")) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        int dash = name.indexOf('-', PREFIX.length());
        if (dash < 0 || HostIdentity.ownerUid(file) != uid) {
          continue;
        }
        try {
          if (!ProcessLiveness.isAlive(Long.parseLong(name.substring(PREFIX.length(), dash)))) {
            deleteQuietly(file);
          }
        } catch (NumberFormatException e) {
          // not a name this class makes
        }
      }
    } catch (IOException | SecurityException e) {
      // nothing to clean, or not ours to clean
    }
  }

  /**
   * @return the file
   */
  public Path path() {
    return path;
  }

  /**
   * @return the nonce in its header and in the descriptor
   */
  public byte[] nonce() {
    return nonce.clone();
  }

  /**
   * @return the native address of the data's first byte
   */
  public long address() {
    return DirectMemory.address(mapping) + SharedMemoryHeader.SIZE;
  }

  /**
   * @return a new direct buffer over the data; it keeps the mapping alive while reachable
   */
  public ByteBuffer byteBuffer() {
    return mapping.slice(SharedMemoryHeader.SIZE, (int) length);
  }

  /**
   * @return data bytes
   */
  public long length() {
    return length;
  }

  /**
   * Ends every peer's access (a copy in progress finishes first; later ones are refused) and
   * removes the file. Blocking: call on a worker.
   *
   * @throws VteException TIMED_OUT naming the process still copying after {@link
   *     #REVOKE_WAIT_NANOS} (the buffer stays revoked; no new copy starts)
   */
  public void revoke() {
    boolean done;
    try {
      if (channel.size() < SharedMemoryHeader.SIZE + length) {
        // truncated under its mapping: writing the header would fault; every peer's copy faults now
        done = true;
      } else {
        header.revoke();
        done =
            CopierLocks.awaitNoCopier(
                path.toString(), channel, System.nanoTime() + REVOKE_WAIT_NANOS);
      }
    } catch (InternalError e) {
      // the file was truncated under its mapping: every peer's copy faults now
      done = true;
    } catch (IOException e) {
      done = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done = false;
    }
    closeQuietly(channel);
    deleteQuietly(path);
    if (!done) {
      throw new VteException(
          ErrorCode.TIMED_OUT,
          "a peer is still copying in shared memory " + path + " after 5 s (it stays revoked)");
    }
  }

  /** Closes a channel, if any; the descriptor is released whatever the error. */
  static void closeQuietly(FileChannel channel) {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      // closing releases the descriptor whatever the error
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // already gone, or the directory refuses: nothing maps it by name after revocation anyway
    }
  }

  @Override
  public String toString() {
    return "SharedMemory[" + path + " " + length + " B]";
  }
}
