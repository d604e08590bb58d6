package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The files under conf/ stay in step with the code: defaults, every documented key, valid examples.
 */
class ConfFilesTest {

  private static final Path CONF = Path.of("../../conf").toAbsolutePath().normalize();

  private static JsonObject read(String name) throws IOException {
    return new JsonObject(Files.readString(CONF.resolve(name)));
  }

  @Test
  void vteJsonHoldsEveryDefault() throws IOException {
    assertEquals(new EngineOptions().toJson(), read("vte.json"));
  }

  @Test
  void clusterExampleIsValidAndPointsAtEtcd() throws IOException {
    EngineOptions options = EngineOptions.fromJson(read("cluster-etcd.json")).validate();
    assertEquals("etcd://127.0.0.1:2379", options.getMetadataUri());
    String readme = Files.readString(CONF.resolve("README.md"));
    assertTrue(
        options.getSegmentName() != null
            && readme.contains("segment name `" + options.getSegmentName() + "`"),
        "a cluster node is opened by its segment name, as conf/README.md says: "
            + options.getSegmentName());
  }

  @Test
  void logbackConfigExists() throws IOException {
    assertTrue(Files.readString(CONF.resolve("logback.xml")).contains("<configuration>"));
  }
}
