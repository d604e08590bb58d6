package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shim binds only {@code IBVERBS_1.0}/{@code IBVERBS_1.1} symbols (and looks up {@code
 * _ibv_query_gid_ex} at run time), so it loads and registers memory on any libibverbs.so.1 of
 * libibverbs 1.1.6 or rdma-core: the fake built with those version nodes only, without {@code
 * ibv_reg_mr_iova2} (rdma-core 28, IBVERBS_1.8) that the {@code ibv_reg_mr} macro of current
 * headers would bind.
 */
@Tag("fake")
class RdmaCoreFloorTest {

  @Test
  void theShimRegistersMemoryOnALibibverbsWithIbverbs11Only() throws Exception {
    Path oldest =
        Path.of(System.getProperty("vte.ibv.fake.library"))
            .resolveSibling("ibverbs-1.1")
            .resolve("libibverbs.so.1");
    assertTrue(Files.exists(oldest), "the build makes the IBVERBS_1.1 fake: " + oldest);
    String out =
        ForkedJvm.run(
            oldest.getParent(),
            List.of("-Dvte.ibv.fake.library=" + oldest),
            PrintRegistration.class);
    assertTrue(out.lines().toList().contains("registered 4096"), out);
  }
}
