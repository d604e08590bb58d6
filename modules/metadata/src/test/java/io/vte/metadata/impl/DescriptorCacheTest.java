package io.vte.metadata.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.handshake.proto.SegmentDescriptor;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DescriptorCacheTest {

  private static SegmentDescriptor version(long v) {
    return SegmentDescriptor.newBuilder().setName("s").setServerName("h:1").setVersion(v).build();
  }

  @Test
  void newerRevisionReplacesOlderNeverTheOtherWayRound() {
    DescriptorCache cache = new DescriptorCache();
    assertTrue(cache.put("s", version(1), 10));
    assertTrue(cache.put("s", version(2), 12));
    assertFalse(
        cache.put("s", version(1), 11), "a late lookup answer must not bring back version 1");
    assertEquals(2, cache.get("s").getVersion());
    assertFalse(cache.put("s", version(3), 12), "same revision is not newer");
  }

  @Test
  void deletionLeavesATombstoneThatOlderAnswersCannotOverwrite() {
    DescriptorCache cache = new DescriptorCache();
    cache.put("s", version(1), 10);
    assertTrue(cache.remove("s", 15));
    assertNull(cache.get("s"));
    assertFalse(cache.put("s", version(1), 14), "an answer read before the delete is stale");
    assertNull(cache.get("s"));
    assertTrue(cache.put("s", version(2), 16), "re-published after the delete");
    assertEquals(2, cache.get("s").getVersion());
    assertEquals(1, cache.size());
    assertEquals(Set.of("s"), cache.names());
  }

  @Test
  void clearForgetsEverything() {
    DescriptorCache cache = new DescriptorCache();
    cache.put("a", version(1), 1);
    cache.remove("b", 2);
    cache.clear();
    assertTrue(cache.names().isEmpty());
    assertTrue(cache.put("a", version(1), 1));
  }
}
