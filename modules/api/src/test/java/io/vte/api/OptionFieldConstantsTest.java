package io.vte.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The typed field constants are the fields of the options' tables: the same names, defaults and
 * ranges, so code outside the options class needs no string key.
 */
class OptionFieldConstantsTest {

  @Test
  void aConstantIsTheTablesFieldWithItsDefault() {
    EngineOptions defaults = new EngineOptions();
    assertTrue(EngineOptions.FIELDS.names().contains(EngineOptionFields.CQ_SIZE.name()));
    assertEquals(defaults.getCqSize(), EngineOptionFields.CQ_SIZE.defaultValue());
    assertEquals(defaults.getBusyPoll(), EngineOptionFields.BUSY_POLL.defaultValue());
    assertEquals(defaults.getIdleEndpoint(), EngineOptionFields.IDLE_ENDPOINT.defaultValue());
    assertEquals(
        EngineOptions.FIELDS.defaultOf("workersPerContext"),
        EngineOptionFields.WORKERS_PER_CONTEXT.defaultValue());
    MetadataOptions metadata = new MetadataOptions();
    assertEquals(metadata.getLeaseTtl(), MetadataOptions.LEASE_TTL.defaultValue());
    assertEquals(metadata.getClusterPrefix(), MetadataOptions.CLUSTER_PREFIX.defaultValue());
  }

  @Test
  void requireChecksTheFieldsRangeAndNamesIt() {
    assertSame(Integer.valueOf(8), EngineOptionFields.CQ_SIZE.require(8, "engine option"));
    InvalidOptionException e =
        assertThrows(
            InvalidOptionException.class,
            () -> EngineOptionFields.CQ_SIZE.require(0, "engine option"));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'cqSize' = 0"), e.getMessage());
    assertThrows(
        InvalidOptionException.class,
        () -> MetadataOptions.LEASE_TTL.require(Duration.ZERO, "metadata option"));
  }
}
