package io.vte.engine.impl.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.verbs.Gid;
import io.vte.verbs.GidType;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import org.junit.jupiter.api.Test;

class PathAgreementTest {

  private static PortAttributes port(LinkLayer linkLayer, int mtu) {
    return new PortAttributes(1, PortState.ACTIVE, mtu, 3, Gid.ZERO, 0, linkLayer);
  }

  @Test
  void theSmallerMtuWinsAndALinkLayerMismatchIsRefusedNamingBothSides() {
    assertEquals(
        1024,
        PathAgreement.pathMtu(
            port(LinkLayer.ETHERNET, 4096), LinkLayer.ETHERNET.ordinal(), 1024, "b@mlx5_0"));
    assertEquals(
        2048, PathAgreement.pathMtu(port(LinkLayer.ETHERNET, 2048), 0, 4096, "old@mlx5_0"));
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                PathAgreement.pathMtu(
                    port(LinkLayer.ETHERNET, 4096),
                    LinkLayer.INFINIBAND.ordinal(),
                    4096,
                    "b@mlx5_1"));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(
        e.getMessage().contains("port 1 here is ETHERNET, b@mlx5_1 is INFINIBAND"), e.getMessage());
    assertThrows(
        VteException.class,
        () -> PathAgreement.pathMtu(port(LinkLayer.ETHERNET, 4096), 2, 1500, "b@mlx5_0"));
  }

  @Test
  void aGidTypeMismatchIsRefusedAndAnUnknownTypeOnEitherSideIsNot() {
    PortAttributes v2 =
        new PortAttributes(
            1, PortState.ACTIVE, 4096, 0, Gid.ZERO, 3, LinkLayer.ETHERNET, GidType.ROCE_V2);
    PathAgreement.requireSameGidType(v2, GidType.ROCE_V2.ordinal(), "b@mlx5_0");
    PathAgreement.requireSameGidType(v2, 0, "old@mlx5_0");
    PathAgreement.requireSameGidType(
        port(LinkLayer.ETHERNET, 4096), GidType.ROCE_V1.ordinal(), "b@mlx5_0");
    PathAgreement.requireSameGidType(v2, 99, "newer@mlx5_0");
    VteException e =
        assertThrows(
            VteException.class,
            () -> PathAgreement.requireSameGidType(v2, GidType.ROCE_V1.ordinal(), "b@mlx5_1"));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(
        e.getMessage().contains("port 1 here uses a ROCE_V2 GID (index 3), b@mlx5_1 a ROCE_V1 one"),
        e.getMessage());
  }
}
