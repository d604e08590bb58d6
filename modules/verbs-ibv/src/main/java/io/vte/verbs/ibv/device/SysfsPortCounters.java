package io.vte.verbs.ibv.device;

import io.vte.verbs.PortCounters;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * A port's counters as the kernel shows them under {@code <root>/<device>/ports/<port>/}: the data
 * counters {@code counters/port_rcv_data} and {@code counters/port_xmit_data} (in 4-byte words, so
 * times 4) and the driver's {@code hw_counters/*} where it has them (soft-RoCE has only those). A
 * file that is missing or does not hold a number (a device without a PMA shows none) is left out.
 *
 * <p>The root is {@code /sys/class/infiniband} unless the system property {@value #ROOT_PROPERTY}
 * names another directory (tests point it at a fake tree).
 */
public final class SysfsPortCounters implements PortCounters {

  /** The system property naming the directory that holds the devices. */
  public static final String ROOT_PROPERTY = "vte.ibv.sysfsRoot";

  /** A hardware counter that is a setting (how long the driver caches the others), not a count. */
  private static final String LIFESPAN = "lifespan";

  private final Path port;

  /**
   * @param root the directory holding one directory per device
   * @param device the device name
   * @param port the port number, from 1
   */
  SysfsPortCounters(Path root, String device, int port) {
    this.port = root.resolve(device).resolve("ports").resolve(Integer.toString(port));
  }

  /**
   * @param device the device name
   * @param port the port number, from 1
   * @return its counters under the configured root
   */
  public static SysfsPortCounters of(String device, int port) {
    return new SysfsPortCounters(
        Path.of(System.getProperty(ROOT_PROPERTY, "/sys/class/infiniband")), device, port);
  }

  @Override
  public Snapshot read() {
    Path counters = port.resolve("counters");
    return new Snapshot(
        bytes(counters.resolve("port_rcv_data")),
        bytes(counters.resolve("port_xmit_data")),
        hardware(port.resolve("hw_counters")));
  }

  private static long bytes(Path words) {
    long n = number(words);
    return n < 0 ? -1 : n * 4;
  }

  private static Map<String, Long> hardware(Path dir) {
    Map<String, Long> values = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return values;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, Files::isRegularFile)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        long n = number(file);
        if (n >= 0 && !name.equals(LIFESPAN)) {
          values.put(name, n);
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return values;
  }

  /**
   * @return the file's number, -1 when it is missing, unreadable or not a number
   */
  private static long number(Path file) {
    try {
      return Long.parseLong(Files.readString(file).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }
}
