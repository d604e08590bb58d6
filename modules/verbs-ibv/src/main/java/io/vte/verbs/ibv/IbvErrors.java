package io.vte.verbs.ibv;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;

/**
 * Turns an errno from a verbs call into a typed {@link VerbsException} naming the call and the
 * value.
 */
public final class IbvErrors {

  /**
   * errno of "function not implemented": what {@code ibv_get_device_list} reports without RDMA in
   * the kernel.
   */
  public static final int ENOSYS = 38;

  private IbvErrors() {}

  /**
   * Builds the exception for a failed verbs call; the shim calls this through JNI.
   *
   * @param call the verbs function, e.g. {@code ibv_modify_qp}
   * @param errno the errno it reported
   * @param detail what it was called with
   * @return the typed exception (not thrown)
   */
  public static VerbsException fromErrno(String call, int errno, String detail) {
    return new VerbsException(
        errorOf(errno),
        call + " failed with " + errnoName(errno) + " (errno " + errno + "): " + detail);
  }

  /**
   * @param errno an errno value
   * @return the {@link VerbsError} it corresponds to; {@link VerbsError#IO_ERROR} for anything
   *     unmapped
   */
  public static VerbsError errorOf(int errno) {
    switch (errno) {
      case 22:
      case 14:
        return VerbsError.INVALID_ARGUMENT;
      case 12:
        return VerbsError.NO_MEMORY;
      case 19:
      case 6:
      case 2:
        return VerbsError.NO_DEVICE;
      case 38:
      case 95:
        return VerbsError.NOT_SUPPORTED;
      case 9:
        return VerbsError.CLOSED;
      case 16:
        return VerbsError.BUSY;
      case 13:
      case 1:
        return VerbsError.ACCESS;
      default:
        return VerbsError.IO_ERROR;
    }
  }

  /**
   * @param errno an errno value
   * @return its symbolic name, e.g. {@code EINVAL}, or {@code errno N} when not one VTE expects
   */
  public static String errnoName(int errno) {
    switch (errno) {
      case 1:
        return "EPERM";
      case 2:
        return "ENOENT";
      case 5:
        return "EIO";
      case 6:
        return "ENXIO";
      case 9:
        return "EBADF";
      case 11:
        return "EAGAIN";
      case 12:
        return "ENOMEM";
      case 13:
        return "EACCES";
      case 14:
        return "EFAULT";
      case 16:
        return "EBUSY";
      case 19:
        return "ENODEV";
      case 22:
        return "EINVAL";
      case 38:
        return "ENOSYS";
      case 95:
        return "EOPNOTSUPP";
      case 110:
        return "ETIMEDOUT";
      default:
        return "errno " + errno;
    }
  }
}
