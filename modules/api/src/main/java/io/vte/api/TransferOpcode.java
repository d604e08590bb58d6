package io.vte.api;

/** Direction of a one-sided transfer, seen from the local buffer. */
public enum TransferOpcode {
  /** Copy remote memory into the local buffer. */
  READ,
  /** Copy the local buffer into remote memory. */
  WRITE
}
