package io.vte.verbs;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import sun.misc.Unsafe;

/**
 * Off-heap memory helpers shared by the providers and the engine: the native address of a direct
 * buffer, copies between native addresses, and a {@link ByteBuffer} view over raw native memory.
 * Uses {@code sun.misc.Unsafe} from the {@code jdk.unsupported} module (no JVM flags needed on Java 17).
 */
public final class DirectMemory {

  private static final Unsafe UNSAFE;
  private static final long ADDRESS_OFFSET;
  private static final long CAPACITY_OFFSET;
  private static final long LIMIT_OFFSET;
  private static final long MARK_OFFSET;
  /** Duplicated by {@link #wrap}: a duplicate carries no Cleaner and reserves no memory. */
  private static final ByteBuffer TEMPLATE = ByteBuffer.allocateDirect(1);

  static {
    try {
      Field f = Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      UNSAFE = (Unsafe) f.get(null);
      ADDRESS_OFFSET = UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("address"));
      CAPACITY_OFFSET = UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("capacity"));
      LIMIT_OFFSET = UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("limit"));
      MARK_OFFSET = UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("mark"));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private DirectMemory() {}

  /**
   * @param buffer a direct buffer
   * @return the native address of its first byte (index 0, regardless of position)
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for a heap buffer
   */
  public static long address(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT,
          "memory must be off-heap: got a heap ByteBuffer of " + buffer.capacity() + " bytes");
    }
    return UNSAFE.getLong(buffer, ADDRESS_OFFSET);
  }

  /**
   * Copies bytes between native addresses (regions may not overlap).
   *
   * @param src source address
   * @param dst destination address
   * @param length bytes
   */
  public static void copy(long src, long dst, long length) {
    UNSAFE.copyMemory(src, dst, length);
  }

  /**
   * Creates a direct buffer view over native memory the caller owns. The view does not free the
   * memory; it must not be used after the memory is freed. Costs one small object (no Cleaner, no
   * reservation); on a hot path keep a view and {@link #retarget} it instead.
   *
   * @param address start address, non-zero
   * @param length bytes, 0..Integer.MAX_VALUE
   * @return a buffer with position 0 and limit = capacity = length
   */
  public static ByteBuffer wrap(long address, int length) {
    ByteBuffer view = TEMPLATE.duplicate();
    retarget(view, address, length);
    return view;
  }

  /**
   * Points an existing view (from {@link #wrap}) at other native memory, allocating nothing: the view
   * gets position 0, limit = capacity = {@code length}, no mark. Use only on views this class made.
   *
   * @param view a view from {@link #wrap}
   * @param address start address, non-zero
   * @param length bytes, 0..Integer.MAX_VALUE
   */
  public static void retarget(ByteBuffer view, long address, int length) {
    if (address == 0 || length < 0) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT,
          "cannot wrap address 0x" + Long.toHexString(address) + " length " + length);
    }
    UNSAFE.putLong(view, ADDRESS_OFFSET, address);
    UNSAFE.putInt(view, CAPACITY_OFFSET, length);
    UNSAFE.putInt(view, LIMIT_OFFSET, length);
    view.position(0);
    UNSAFE.putInt(view, MARK_OFFSET, -1);
  }

  /**
   * Allocates native memory (not zeroed); free it with {@link #free(long)}.
   *
   * @param length bytes, positive
   * @return the address
   */
  public static long allocate(long length) {
    if (length <= 0) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "allocation length must be > 0, got " + length);
    }
    return UNSAFE.allocateMemory(length);
  }

  /** @param address an address from {@link #allocate(long)} */
  public static void free(long address) {
    UNSAFE.freeMemory(address);
  }

  /** @param address address @return the byte there */
  public static byte getByte(long address) {
    return UNSAFE.getByte(address);
  }

  /** @param address address @param value the byte to store */
  public static void putByte(long address, byte value) {
    UNSAFE.putByte(address, value);
  }

  /**
   * @param address start
   * @param length bytes
   * @param value byte to fill with
   */
  public static void fill(long address, long length, byte value) {
    UNSAFE.setMemory(address, length, value);
  }
}
