package io.vte.verbs;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a device served to its peers as the responder of one-sided operations: the RDMA READs it
 * answered and the RDMA WRITEs it executed into its memory, each counted once (a READ a requester
 * sent again after a lost response is not counted again). Thread-safe; counted by the provider's
 * threads, read by anyone.
 */
public final class ServedCounters {

  private final LongAdder readBytes = new LongAdder();
  private final LongAdder reads = new LongAdder();
  private final LongAdder writeBytes = new LongAdder();
  private final LongAdder writes = new LongAdder();

  /** Creates zeroed counters. */
  public ServedCounters() {}

  /**
   * Counts an RDMA READ answered.
   *
   * @param bytes its length
   */
  public void read(long bytes) {
    readBytes.add(bytes);
    reads.increment();
  }

  /**
   * Counts an RDMA WRITE executed into local memory.
   *
   * @param bytes its length
   */
  public void write(long bytes) {
    writeBytes.add(bytes);
    writes.increment();
  }

  /**
   * @return bytes of the READs answered
   */
  public long readBytes() {
    return readBytes.sum();
  }

  /**
   * @return READs answered
   */
  public long reads() {
    return reads.sum();
  }

  /**
   * @return bytes of the WRITEs executed
   */
  public long writeBytes() {
    return writeBytes.sum();
  }

  /**
   * @return WRITEs executed
   */
  public long writes() {
    return writes.sum();
  }
}
