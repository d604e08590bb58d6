package io.vte.verbs.ibv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.verbs.PortCounters.Snapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel's port counters read from a fake sysfs tree laid out as the kernel lays it out: a NIC
 * with data counters (in 4-byte words) and driver counters, soft-RoCE with driver counters only, a
 * device whose counters are not numbers, a device that is not there.
 */
class SysfsPortCountersTest {

  @TempDir Path root;

  @Test
  void dataCountersAreWordsTimesFourAndDriverCountersAreByName() throws IOException {
    write("mlx5_0/ports/1/counters/port_rcv_data", "1000\n");
    write("mlx5_0/ports/1/counters/port_xmit_data", "250\n");
    write("mlx5_0/ports/1/hw_counters/out_of_sequence", "7\n");
    write("mlx5_0/ports/1/hw_counters/lifespan", "10\n");
    write("mlx5_0/ports/2/counters/port_rcv_data", "9\n");

    Snapshot port1 = new SysfsPortCounters(root, "mlx5_0", 1).read();
    assertEquals(new Snapshot(4000, 1000, Map.of("out_of_sequence", 7L)), port1);
    assertEquals(36, new SysfsPortCounters(root, "mlx5_0", 2).read().receivedBytes());
  }

  @Test
  void softRoceShowsDriverCountersOnly() throws IOException {
    write("rxe0/ports/1/hw_counters/rdma_recvs", "12\n");
    write("rxe0/ports/1/hw_counters/rdma_sends", "3\n");
    write("rxe0/ports/1/hw_counters/sent_pkts", "40\n");

    assertEquals(
        new Snapshot(-1, -1, Map.of("rdma_recvs", 12L, "rdma_sends", 3L, "sent_pkts", 40L)),
        new SysfsPortCounters(root, "rxe0", 1).read());
  }

  @Test
  void countersThatAreNotNumbersAreLeftOut() throws IOException {
    write("dev0/ports/1/counters/port_rcv_data", "N/A (no PMA)\n");
    write("dev0/ports/1/counters/port_xmit_data", "");
    write("dev0/ports/1/hw_counters/rx_bytes", "x\n");

    assertEquals(new Snapshot(-1, -1, Map.of()), new SysfsPortCounters(root, "dev0", 1).read());
  }

  @Test
  void aDeviceThatIsNotThereHasNoCounters() {
    assertEquals(new Snapshot(-1, -1, Map.of()), new SysfsPortCounters(root, "gone0", 1).read());
  }

  @Test
  void theRootComesFromTheSystemProperty() throws IOException {
    write("mlx5_1/ports/1/counters/port_xmit_data", "5\n");
    String before = System.getProperty(SysfsPortCounters.ROOT_PROPERTY);
    System.setProperty(SysfsPortCounters.ROOT_PROPERTY, root.toString());
    try {
      assertEquals(20, SysfsPortCounters.of("mlx5_1", 1).read().transmittedBytes());
    } finally {
      if (before == null) {
        System.clearProperty(SysfsPortCounters.ROOT_PROPERTY);
      } else {
        System.setProperty(SysfsPortCounters.ROOT_PROPERTY, before);
      }
    }
  }

  private void write(String relative, String content) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }
}
