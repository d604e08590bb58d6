package io.vte.verbs.ibv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.verbs.DeviceInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.ibv.IbvDeviceCaps;
import io.vte.verbs.ibv.IbvPortInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbvDeviceDetailsTest {

  @Test
  void showsCapsLinkLayerMtusGidTypesTheChosenGidAndProblems() {
    Gid v1 = new Gid(0xfe80_0000_0000_0000L, 1);
    Gid v2 = new Gid(0, 0x0000_ffff_0a00_0007L);
    IbvPortInfo port =
        new IbvPortInfo(
            1,
            PortState.ACTIVE,
            1024,
            4096,
            0,
            LinkLayer.ETHERNET,
            4,
            List.of(
                new IbvGidEntry(0, v1, IbvGidType.ROCE_V1, 5),
                new IbvGidEntry(1, v2, IbvGidType.ROCE_V2, 5)),
            1,
            1L << 30);
    IbvDeviceReport report =
        new IbvDeviceReport(
            new DeviceInfo(
                "mlx5_0",
                "ibverbs",
                List.of(
                    new PortAttributes(1, PortState.ACTIVE, 1024, 0, v2, 1, LinkLayer.ETHERNET))),
            new IbvDeviceCaps(1, 32768, 30, 4194303, 16, 16, 1L << 40, 1000, 1000, 8),
            List.of(port),
            List.of("port 2 of 'mlx5_0' has no usable GID"),
            false);
    assertEquals(
        List.of(
            "mlx5_0: max_qp_wr=32768 max_sge=30 max_cqe=4194303 max_qp_rd_atom=16"
                + " max_qp_init_rd_atom=16 max_mr_size=1099511627776 max_qp=1000 max_cq=1000"
                + " comp_vectors=8",
            "  port 1: ETHERNET ACTIVE mtu 1024/4096 lid 0 gids 2/4 (types from sysfs: rdma-core <"
                + " 32)",
            "    gid 0 " + v1 + " ROCE_V1 ifindex 5",
            "  * gid 1 " + v2 + " ROCE_V2 ifindex 5",
            "  unusable: port 2 of 'mlx5_0' has no usable GID"),
        IbvDeviceDetails.lines(report));
  }
}
