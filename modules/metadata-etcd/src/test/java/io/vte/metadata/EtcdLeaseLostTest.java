package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.MetadataOptions;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * etcd forgets a node's lease before its next put (the node stalled past the TTL: a starved JVM
 * between the grant at start and its first put, as 32 host JVMs on 2 cores showed): the puts go out
 * under one new lease instead of failing, and the keys live on.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdLeaseLostTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension final EtcdStores stores = EtcdStores.onOwnEtcd();

  @Test
  void putsAfterEtcdForgotTheLeaseGoOutUnderOneNewLease() {
    // the health probe (every TTL / 3 = 20 s) would renew the lease too, but much later
    MetadataStore store =
        stores.started(
            new MetadataOptions()
                .setClusterPrefix("/vte/lost")
                .setLeaseTtl(Duration.ofSeconds(60))
                .setHealthCheckInterval(Duration.ofSeconds(60)));
    Set<Long> before = leases();
    assertEquals(1, before.size(), before.toString());
    for (long lease : before) {
      stores.etcd().etcdctl("lease", "revoke", Long.toHexString(lease));
    }
    assertEquals(Set.of(), leases());

    List<Future<Void>> puts =
        List.of(
            store.publish(Descriptors.sample("a", "127.0.0.1:7301", 1, 1)),
            store.publish(Descriptors.sample("b", "127.0.0.1:7302", 1, 1)));
    Await.result(Future.all(puts), WAIT);

    Set<Long> after = leases();
    assertEquals(1, after.size(), "one new lease for both puts: " + after);
    assertNotEquals(before, after);
    JsonArray kvs =
        new JsonObject(
                stores.etcd().etcdctl("get", "/vte/lost/segments/", "--prefix", "-w", "json"))
            .getJsonArray("kvs");
    assertEquals(2, kvs.size(), kvs.encode());
    for (int i = 0; i < kvs.size(); i++) {
      long lease = kvs.getJsonObject(i).getLong("lease");
      assertTrue(after.contains(lease), "key under the live lease " + after + ": " + kvs.encode());
    }
  }

  /** The leases etcd knows (etcdctl lists them in zero-padded hex). */
  private Set<Long> leases() {
    Set<Long> out = new HashSet<>();
    for (String line : stores.etcd().etcdctl("lease", "list").lines().toList()) {
      if (line.matches("[0-9a-f]+")) {
        out.add(Long.parseUnsignedLong(line, 16));
      }
    }
    return out;
  }
}
