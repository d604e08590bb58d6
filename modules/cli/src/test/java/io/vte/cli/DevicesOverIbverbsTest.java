package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.cli.common.ExitCodes;
import io.vte.verbs.PortState;
import io.vte.verbs.ibv.FakeIbverbs;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code vte devices} over the ibverbs JNI provider and the fake libibverbs: what a user with a
 * real NIC reads first (caps, link layer, MTUs, the GID table with types, the chosen GID, why a
 * port is unusable) comes from the verbs calls, through the command's own wiring.
 */
@Tag("fake")
class DevicesOverIbverbsTest {

  private static final int MTU_1024 = 3;
  private static final int MTU_4096 = 5;

  @Test
  void devicesShowsCapsLinkLayerMtusAndGidsWithTypesFromTheVerbsCalls() {
    FakeIbverbs.reset();
    FakeIbverbs.setDevices(new String[] {"fake_mlx5_0", "fake_mlx5_1"}, 1);
    FakeIbverbs.setCaps(4096, 65535, 8, 4, 128, 3);
    FakeIbverbs.setDevicePort(
        0, 1, PortState.ACTIVE.code(), MTU_1024, 0, FakeIbverbs.LINK_ETHERNET, 4);
    FakeIbverbs.setDeviceGid(0, 1, 0, FakeIbverbs.gid("fe80::1"), FakeIbverbs.ROCE_V1);
    FakeIbverbs.setDeviceGid(0, 1, 1, FakeIbverbs.gid("10.9.8.7"), FakeIbverbs.ROCE_V2);
    // device 1: a RoCE port without a GID, which VTE refuses
    FakeIbverbs.setDevicePort(
        1, 1, PortState.ACTIVE.code(), MTU_4096, 0, FakeIbverbs.LINK_ETHERNET, 4);
    for (int i = 0; i < 4; i++) {
      FakeIbverbs.setDeviceGid(1, 1, i, new byte[16], FakeIbverbs.ROCE_V2);
    }
    CliRun r = CliRun.of("devices");
    assertEquals(ExitCodes.OK, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    String out = r.out();
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.startsWith("fake_mlx5_0: max_qp_wr=4096")
                        && l.contains("max_cqe=65535")
                        && l.contains("max_qp_rd_atom=8")
                        && l.contains("max_qp_init_rd_atom=4")
                        && l.contains("comp_vectors=3")),
        out);
    assertTrue(
        lines.stream().anyMatch(l -> l.matches("  port 1: ETHERNET ACTIVE mtu 1024/\\d+ .*")), out);
    assertTrue(lines.stream().anyMatch(l -> l.matches("    gid 0 \\S+ ROCE_V1.*")), out);
    // 10.9.8.7 as an IPv4-mapped GID
    assertTrue(
        lines.contains("  * gid 1 0000:0000:0000:0000:0000:ffff:0a09:0807 ROCE_V2"),
        "the RoCE v2 GID of the address is the one chosen: " + out);
    assertTrue(
        lines.stream()
            .anyMatch(
                l -> l.contains("unusable") && l.contains("fake_mlx5_1") && l.contains("GID")),
        "the port without a usable GID says why: " + out);
    assertEquals(List.of(), FakeIbverbs.refusals());
    FakeIbverbs.assertNothingLive();
  }
}
