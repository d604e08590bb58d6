package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    return ForkedJvm.run(
        library.getParent(),
        List.of("-Dvte.ibv.fake.library=" + library),
        PrintGidTable.class,
        sysfs.toString());
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
