package io.vte.verbs;

/** Typed causes of control-plane verbs failures, each with the errno it corresponds to. */
public enum VerbsError {
  /** A bad argument: the message names the value (EINVAL). */
  INVALID_ARGUMENT(22),
  /**
   * The operation is not allowed in the object's current state, e.g. an illegal QP transition
   * (EINVAL).
   */
  INVALID_STATE(22),
  /** Out of memory or a resource limit hit (ENOMEM). */
  NO_MEMORY(12),
  /** No such device, or no devices at all (ENODEV). */
  NO_DEVICE(19),
  /** The provider or operation is not supported on this host (ENOSYS). */
  NOT_SUPPORTED(38),
  /** The object was closed (EBADF). */
  CLOSED(9),
  /** The object is still in use, e.g. an MR with QPs referencing its PD (EBUSY). */
  BUSY(16),
  /** Permission denied (EACCES). */
  ACCESS(13),
  /** An I/O failure of the underlying transport (EIO). */
  IO_ERROR(5);

  private final int errno;

  VerbsError(int errno) {
    this.errno = errno;
  }

  /**
   * @return the corresponding errno value
   */
  public int errno() {
    return errno;
  }
}
