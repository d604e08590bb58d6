package io.vte.cli.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.testkit.EtcdServer;
import org.junit.jupiter.api.Test;

/**
 * {@code vte scale --segments}: every watcher sees every key, and every lookup finds its segment.
 */
class MetadataScaleTest {

  @Test
  void everyWatcherSeesEveryPublishedKeyAndLookupsFindTheirSegments() throws Exception {
    try (EtcdServer etcd = EtcdServer.start()) {
      String table = MetadataScale.run(etcd.uri(), 300, 4, 50);
      String[] cells = table.lines().reduce((a, b) -> b).orElseThrow().split("\\|");
      assertEquals("300", cells[1].trim(), table);
      assertEquals("600", cells[2].trim(), "a segment and a node key per publish: " + table);
      assertEquals("4", cells[4].trim(), table);
      assertEquals("600", cells[5].trim(), "the fewest events a watcher saw: " + table);
    }
  }
}
