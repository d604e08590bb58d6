package io.vte.it.rxe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The port counters of rxe devices ({@code /sys/class/infiniband/<dev>/ports/1/hw_counters}), read
 * inside a guest: what its RC transport did (packets, retries after an ACK timeout as {@code
 * completer_retry_err}, out-of-sequence and duplicate requests at the responder).
 */
final class RxeCounters {

  private RxeCounters() {}

  /**
   * @return every counter of every device, keyed {@code <dev>.<counter>}
   */
  static Map<String, Long> read(List<String> devices) {
    Map<String, Long> all = new TreeMap<>();
    for (String dev : devices) {
      Path dir = Path.of("/sys/class/infiniband", dev, "ports", "1", "hw_counters");
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          all.put(dev + "." + f.getFileName(), Long.parseLong(Files.readString(f).trim()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return all;
  }

  /**
   * @return the counters that grew from {@code before} to {@code after}, by how much
   */
  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> grown = new TreeMap<>();
    after.forEach(
        (name, value) -> {
          long d = value - before.getOrDefault(name, 0L);
          if (d != 0) {
            grown.put(name, d);
          }
        });
    return grown;
  }
}
