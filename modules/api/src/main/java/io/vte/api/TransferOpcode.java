package io.vte.api;

/**
 * Direction of a one-sided transfer, seen from the local buffer; chosen by the factory method that
 * makes the request: {@code TransferRequest.write(local, 0, segment, remoteAddress, length)} is a
 * {@link #WRITE}.
 */
public enum TransferOpcode {
  /** Copy remote memory into the local buffer. */
  READ,
  /** Copy the local buffer into remote memory. */
  WRITE
}
