package io.vte.verbs;

import java.util.Map;

/**
 * The traffic counters a NIC keeps in hardware for one port, as its driver shows them: what a node
 * whose NIC serves peers' one-sided operations without the host (ibverbs) can count of what it
 * served. They are port-wide (every QP and every process on the port, the initiator's traffic too,
 * headers included) and there is no count per opcode or per operation.
 */
public interface PortCounters {

  /**
   * Reads the counters now. May block (a driver may ask the NIC's firmware), so never call it on an
   * event loop.
   *
   * @return the counters now
   */
  Snapshot read();

  /**
   * The counters at one moment.
   *
   * @param receivedBytes bytes the port received, -1 when the device shows no data counters
   * @param transmittedBytes bytes the port sent, -1 when the device shows no data counters
   * @param hardware the driver's own counters by its names (e.g. soft-RoCE's {@code rdma_recvs}),
   *     empty when it has none
   */
  record Snapshot(long receivedBytes, long transmittedBytes, Map<String, Long> hardware) {

    /** Copies the map. */
    public Snapshot {
      hardware = Map.copyOf(hardware);
    }
  }
}
