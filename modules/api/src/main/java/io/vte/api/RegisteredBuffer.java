package io.vte.api;

/**
 * Off-heap memory registered with an engine on every local device. Created by {@link
 * TransferEngine#register}; valid until {@link TransferEngine#unregister}.
 */
public interface RegisteredBuffer {

  /**
   * @return native address of the first byte
   */
  long address();

  /**
   * @return length in bytes
   */
  long length();

  /**
   * @return the location tag given at registration, e.g. {@code cpu:0}
   */
  String location();

  /**
   * @return true until the buffer is unregistered or its engine closed
   */
  boolean isRegistered();

  /**
   * @return a new direct buffer over this memory (position 0, capacity {@link #length()}); for
   *     memory from {@link TransferEngine#allocate} it keeps the memory mapped while it is
   *     reachable, for registered memory its owner keeps it alive
   * @throws VteException INVALID_ARGUMENT when the memory is longer than a ByteBuffer can be
   */
  java.nio.ByteBuffer byteBuffer();
}
