package io.vte.verbs;

/**
 * A registered memory region ({@code ibv_mr}). After {@link #close()} its keys are invalid: remote
 * accesses with its rkey complete with {@link WcStatus#REM_ACCESS_ERR} and the target memory is
 * untouched.
 */
public interface MemoryRegion extends AutoCloseable {

  /**
   * @return start address of the region
   */
  long address();

  /**
   * @return length in bytes
   */
  long length();

  /**
   * @return key for local work requests
   */
  int lkey();

  /**
   * @return key peers present to access the region remotely
   */
  int rkey();

  /**
   * @return the {@link AccessFlags} granted
   */
  int accessFlags();

  /** Deregisters the region. Idempotent. */
  @Override
  void close();
}
