package io.vte.verbs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Off-heap memory helpers shared by the providers and the engine: the native address of a direct
 * buffer, copies between native addresses, and a {@link ByteBuffer} view over raw native memory.
 * Uses {@code sun.misc.Unsafe} from the {@code jdk.unsupported} module (no JVM flags needed on Java
 * 17), through method handles bound to it: the class is named only at run time, so that javac,
 * which cannot silence its warning about that API, builds with {@code -Werror}; constant method
 * handles in static final fields inline like direct calls.
 */
public final class DirectMemory {

  private static final MethodHandle GET_LONG;
  private static final MethodHandle PUT_LONG;
  private static final MethodHandle PUT_INT;
  private static final MethodHandle COPY_MEMORY;
  private static final MethodHandle ALLOCATE_MEMORY;
  private static final MethodHandle FREE_MEMORY;
  private static final MethodHandle GET_BYTE;
  private static final MethodHandle PUT_BYTE;
  private static final MethodHandle SET_MEMORY;
  private static final long ADDRESS_OFFSET;
  private static final long CAPACITY_OFFSET;
  private static final long LIMIT_OFFSET;
  private static final long MARK_OFFSET;

  /** Duplicated by {@link #wrap}: a duplicate carries no Cleaner and reserves no memory. */
  private static final ByteBuffer TEMPLATE = ByteBuffer.allocateDirect(1);

  static {
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      Field f = type.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      Object unsafe = f.get(null);
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      GET_LONG = bound(lookup, type, unsafe, "getLong", long.class, Object.class, long.class);
      PUT_LONG =
          bound(lookup, type, unsafe, "putLong", void.class, Object.class, long.class, long.class);
      PUT_INT =
          bound(lookup, type, unsafe, "putInt", void.class, Object.class, long.class, int.class);
      COPY_MEMORY =
          bound(lookup, type, unsafe, "copyMemory", void.class, long.class, long.class, long.class);
      ALLOCATE_MEMORY = bound(lookup, type, unsafe, "allocateMemory", long.class, long.class);
      FREE_MEMORY = bound(lookup, type, unsafe, "freeMemory", void.class, long.class);
      GET_BYTE = bound(lookup, type, unsafe, "getByte", byte.class, long.class);
      PUT_BYTE = bound(lookup, type, unsafe, "putByte", void.class, long.class, byte.class);
      SET_MEMORY =
          bound(lookup, type, unsafe, "setMemory", void.class, long.class, long.class, byte.class);
      MethodHandle fieldOffset =
          bound(lookup, type, unsafe, "objectFieldOffset", long.class, Field.class);
      ADDRESS_OFFSET = (long) fieldOffset.invokeExact(Buffer.class.getDeclaredField("address"));
      CAPACITY_OFFSET = (long) fieldOffset.invokeExact(Buffer.class.getDeclaredField("capacity"));
      LIMIT_OFFSET = (long) fieldOffset.invokeExact(Buffer.class.getDeclaredField("limit"));
      MARK_OFFSET = (long) fieldOffset.invokeExact(Buffer.class.getDeclaredField("mark"));
    } catch (Throwable e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static MethodHandle bound(
      MethodHandles.Lookup lookup,
      Class<?> type,
      Object unsafe,
      String name,
      Class<?> returns,
      Class<?>... params)
      throws ReflectiveOperationException {
    return lookup.findVirtual(type, name, MethodType.methodType(returns, params)).bindTo(unsafe);
  }

  /**
   * Unsafe's methods throw nothing checked; anything else is a JVM error and passes through as it
   * is.
   */
  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }

  private DirectMemory() {}

  /**
   * @param buffer a direct buffer
   * @return the native address of its first byte (index 0, regardless of position)
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for a heap buffer
   */
  public static long address(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "memory must be off-heap: got a heap ByteBuffer of " + buffer.capacity() + " bytes");
    }
    try {
      return (long) GET_LONG.invokeExact((Object) buffer, ADDRESS_OFFSET);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Copies bytes between native addresses (regions may not overlap).
   *
   * @param src source address
   * @param dst destination address
   * @param length bytes
   */
  public static void copy(long src, long dst, long length) {
    try {
      COPY_MEMORY.invokeExact(src, dst, length);
    } catch (Throwable t) {
      throw rethrow(t);
    }
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
   * Points an existing view (from {@link #wrap}) at other native memory, allocating nothing: the
   * view gets position 0, limit = capacity = {@code length}, no mark. Use only on views this class
   * made.
   *
   * @param view a view from {@link #wrap}
   * @param address start address, non-zero
   * @param length bytes, 0..Integer.MAX_VALUE
   */
  public static void retarget(ByteBuffer view, long address, int length) {
    if (address == 0 || length < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "cannot wrap address 0x" + Long.toHexString(address) + " length " + length);
    }
    try {
      PUT_LONG.invokeExact((Object) view, ADDRESS_OFFSET, address);
      PUT_INT.invokeExact((Object) view, CAPACITY_OFFSET, length);
      PUT_INT.invokeExact((Object) view, LIMIT_OFFSET, length);
      view.position(0);
      PUT_INT.invokeExact((Object) view, MARK_OFFSET, -1);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Allocates native memory (not zeroed); free it with {@link #free(long)}.
   *
   * @param length bytes, positive
   * @return the address
   */
  public static long allocate(long length) {
    if (length <= 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "allocation length must be > 0, got " + length);
    }
    try {
      return (long) ALLOCATE_MEMORY.invokeExact(length);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * @param address an address from {@link #allocate(long)}
   */
  public static void free(long address) {
    try {
      FREE_MEMORY.invokeExact(address);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * @param address address
   * @return the byte there
   */
  public static byte getByte(long address) {
    try {
      return (byte) GET_BYTE.invokeExact(address);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * @param address address
   * @param value the byte to store
   */
  public static void putByte(long address, byte value) {
    try {
      PUT_BYTE.invokeExact(address, value);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * @param address start
   * @param length bytes
   * @param value byte to fill with
   */
  public static void fill(long address, long length, byte value) {
    try {
      SET_MEMORY.invokeExact(address, length, value);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
