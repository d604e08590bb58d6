package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim resolves {@code _ibv_query_gid_ex} (rdma-core 32+) at run time: on an older libibverbs
 * it still loads and reads GID types from sysfs; on a newer one it asks the library.
 */
@Tag("fake")
class GidTypeFallbackTest {

  private static String run(Path library, Path sysfs) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Dvte.ibv.fake.library=" + library,
            "-cp",
            System.getProperty("java.class.path"),
            PrintGidTable.class.getName(),
            sysfs.toString());
    pb.environment().put("LD_LIBRARY_PATH", library.getParent().toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forked JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  private static Path sysfs(Path dir) throws Exception {
    Path types = dir.resolve("fake_mlx5_0/ports/1/gid_attrs/types");
    Files.createDirectories(types);
    Files.writeString(types.resolve("0"), "IB/RoCE v1\n");
    Files.writeString(types.resolve("1"), "RoCE v2\n");
    return dir;
  }

  @Test
  void onRdmaCoreOlderThan32TheShimLoadsAndReadsGidTypesFromSysfs(@TempDir Path dir)
      throws Exception {
    Path old =
        Path.of(System.getProperty("vte.ibv.fake.library"))
            .resolveSibling("rdma-core-31")
            .resolve("libibverbs.so.1");
    assertTrue(Files.exists(old), "the build makes the rdma-core 31 fake: " + old);
    String out = run(old, sysfs(dir));
    List<String> lines = out.lines().toList();
    assertTrue(lines.contains("available"), out);
    assertTrue(lines.contains("gidTypesFromVerbs=false"), out);
    assertTrue(out.contains(":0001(ROCE_V1), 1:") && out.contains(":0007(ROCE_V2)]"), out);
    assertTrue(lines.contains("chosen=1"), "RoCE v2 chosen by its sysfs type: " + out);
  }

  @Test
  void onCurrentRdmaCoreGidTypesComeFromIbvQueryGidEx(@TempDir Path dir) throws Exception {
    // No sysfs tree at all: the types can only come from _ibv_query_gid_ex.
    String out = run(Path.of(System.getProperty("vte.ibv.fake.library")), dir);
    List<String> lines = out.lines().toList();
    assertTrue(lines.contains("gidTypesFromVerbs=true"), out);
    assertTrue(lines.contains("chosen=1"), out);
  }
}
