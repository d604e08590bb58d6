package io.vte.api;

/**
 * One READ or WRITE between a local registered buffer and a peer segment.
 *
 * @param opcode READ (remote to local) or WRITE (local to remote)
 * @param local the local registered buffer
 * @param localOffset offset of the first byte within {@code local}
 * @param segment the peer segment
 * @param remoteAddress native address of the first remote byte (inside one of the segment's
 *     buffers)
 * @param length bytes to move, positive
 */
public record TransferRequest(
    TransferOpcode opcode,
    RegisteredBuffer local,
    long localOffset,
    SegmentHandle segment,
    long remoteAddress,
    long length) {

  /**
   * @param local local buffer
   * @param localOffset offset in it
   * @param segment peer segment
   * @param remoteAddress remote address
   * @param length bytes
   * @return a READ request
   */
  public static TransferRequest read(
      RegisteredBuffer local,
      long localOffset,
      SegmentHandle segment,
      long remoteAddress,
      long length) {
    return new TransferRequest(
        TransferOpcode.READ, local, localOffset, segment, remoteAddress, length);
  }

  /**
   * @param local local buffer
   * @param localOffset offset in it
   * @param segment peer segment
   * @param remoteAddress remote address
   * @param length bytes
   * @return a WRITE request
   */
  public static TransferRequest write(
      RegisteredBuffer local,
      long localOffset,
      SegmentHandle segment,
      long remoteAddress,
      long length) {
    return new TransferRequest(
        TransferOpcode.WRITE, local, localOffset, segment, remoteAddress, length);
  }
}
