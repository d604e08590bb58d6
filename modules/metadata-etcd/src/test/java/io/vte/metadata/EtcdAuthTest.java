package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** User/password pass-through against an etcd with authentication enabled (etcdctl sets it up). */
@ExtendWith(BlockedThreadGuard.class)
class EtcdAuthTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  @RegisterExtension
  static final EtcdStores stores = EtcdStores.onClassEtcd(EtcdAuthTest::startEtcdWithAuth);

  private static EtcdServer startEtcdWithAuth() {
    EtcdServer etcd = EtcdServer.start();
    etcd.etcdctl("user", "add", "root:rootpw");
    etcd.etcdctl("user", "add", "vte:s3cret");
    etcd.etcdctl("role", "add", "vte-node");
    etcd.etcdctl(
        "role", "grant-permission", "vte-node", "--prefix=true", "readwrite", "/vte/auth/");
    etcd.etcdctl("user", "grant-role", "vte", "vte-node");
    etcd.etcdctl("auth", "enable");
    return etcd;
  }

  private MetadataOptions options(String user, String password) {
    MetadataOptions o =
        new MetadataOptions()
            .setClusterPrefix("/vte/auth")
            .setLeaseTtl(Duration.ofSeconds(3))
            .setCallDeadline(Duration.ofSeconds(10));
    return user == null ? o : o.setEtcdUser(user).setEtcdPassword(password);
  }

  @Test
  void rightCredentialsPublishAndLookUp() {
    MetadataStore a = stores.create(options("vte", "s3cret"));
    Await.result(a.start(), WAIT);
    SegmentDescriptor d = Descriptors.sample("authed", "127.0.0.1:7301", 1, 1);
    Await.result(a.publish(d), WAIT);
    assertEquals(d, Await.result(a.lookup("authed"), WAIT));
    String stored =
        stores
            .etcd()
            .etcdctl(
                "--user=root:rootpw", "get", "/vte/auth/segments/authed", "--print-value-only");
    assertTrue(stored.contains("\"name\":\"authed\""), stored);
    Await.result(a.close(), WAIT);
  }

  @Test
  void wrongPasswordIsPermissionDenied() {
    MetadataStore a = stores.create(options("vte", "wrong"));
    VteException e = assertInstanceOf(VteException.class, Await.failure(a.start(), WAIT));
    assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
    Await.result(a.close(), WAIT);
  }

  @Test
  void noCredentialsIsRefused() {
    MetadataStore a = stores.create(options(null, null));
    VteException e = assertInstanceOf(VteException.class, Await.failure(a.start(), WAIT));
    assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
    Await.result(a.close(), WAIT);
  }
}
