package io.vte.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.it.NodeProcess;
import io.vte.it.ReliabilityReport;
import io.vte.it.RemoteLoad;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opentest4j.TestAbortedException;

/**
 * The namespace hosts themselves (issue 11 item 2): engines on two hosts find each other through
 * etcd running in a namespace of its own and write byte-exact over the rails; a set left behind is
 * removed by the next one, and closing leaves no namespace.
 */
@ExtendWith(ReliabilityReport.class)
class NetnsHostsTest {

  @Test
  void enginesOnTwoHostsFindEachOtherThroughEtcdInItsOwnNamespace() throws Exception {
    try (NetnsHosts hosts = NetnsHosts.up(2, 2);
        EtcdServer etcd =
            EtcdServer.startIn(hosts.services().launcher(), hosts.services().mgmt().address())) {
      String metadata = "metadata=etcd://" + etcd.hostPort();
      NodeProcess receiver = null;
      NodeProcess sender = null;
      try {
        NetnsHosts.Host h1 = hosts.host(1);
        receiver =
            hosts.startNode(
                h1,
                "etcd-recv",
                "devices=" + String.join(",", h1.devices("h1")),
                "rpcHost=" + h1.mgmt().address(),
                "buffer=" + HostLoads.SLOTS * HostLoads.CHUNK,
                metadata,
                "segmentName=kv-pool");
        NetnsHosts.Host h0 = hosts.host(0);
        sender =
            hosts.startNode(
                h0,
                "etcd-send",
                "devices=" + String.join(",", h0.devices("h0")),
                "rpcHost=" + h0.mgmt().address(),
                "buffer=4096",
                metadata,
                "segmentName=prefill");
        String descriptor =
            etcd.etcdctl("get", "/vte/default/segments/kv-pool", "--print-value-only");
        assertTrue(
            descriptor.contains(receiver.server()) && descriptor.contains("h1d1"),
            "the receiver's descriptor in etcd names its server and devices: " + descriptor);
        // The segment by its logical name, through etcd, then over every rail.
        RemoteLoad r =
            RemoteLoad.of(
                    HostLoads.run(
                        sender,
                        0,
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(30),
                        List.of(
                            HostLoads.target(receiver, 0, HostLoads.CHUNK)
                                .put("server", "kv-pool")),
                        List.of(),
                        List.of()))
                .get(0);
        assertEquals(0, r.failures(), r.failureDetails());
        assertTrue(r.transfers() > 0, "writes were made");
        r.assertEveryWriteLanded("writes through etcd");
        assertEquals(r.localCrc(), receiver.crc(0), "byte-exact on the receiver");
        assertEquals(
            2,
            HostLoads.stats(sender, 0).endpointsAlive(),
            "an endpoint on each of the 2 rails: each NIC sends to the peer NIC of its subnet (RailAffinity), not"
                + " across rails");
      } finally {
        for (NodeProcess n : new NodeProcess[] {sender, receiver}) {
          if (n != null) {
            n.close();
          }
        }
      }
    }
    assertEquals(List.of(), NetnsHosts.namespaces(), "closing removed every namespace of the set");
  }

  @Test
  void withoutNamespacesTheTestsSkipWithTheReasonButFailUnderCi() {
    TestAbortedException skipped =
        assertThrows(
            TestAbortedException.class,
            () -> NetnsHosts.assumeAvailable("network namespaces need root (uid 1000)", null));
    assertTrue(skipped.getMessage().contains("need root (uid 1000)"), skipped.getMessage());
    AssertionError failed =
        assertThrows(
            AssertionError.class,
            () -> NetnsHosts.assumeAvailable("no 'ip' command (Debian package iproute2)", "true"));
    assertTrue(
        failed.getMessage().contains("CI=true") && failed.getMessage().contains("no 'ip' command"),
        failed.getMessage());
    NetnsHosts.assumeAvailable(null, "true"); // available: nothing to say
  }

  @Test
  void aLeftoverSetIsRemovedByTheNextAndCloseLeavesNothing() {
    NetnsHosts leftover = NetnsHosts.up(3, 1); // as if its run had been killed: never closed
    assertTrue(
        NetnsHosts.namespaces().contains(leftover.host(2).namespace()),
        NetnsHosts.namespaces().toString());
    try (NetnsHosts next = NetnsHosts.up(1, 1)) {
      assertEquals(
          List.of(next.host(0).namespace(), next.services().namespace(), next.fabric().namespace())
              .stream()
              .sorted()
              .toList(),
          NetnsHosts.namespaces(),
          "only the new set remains");
    }
    assertEquals(List.of(), NetnsHosts.namespaces(), "closing removed every namespace");
  }
}
