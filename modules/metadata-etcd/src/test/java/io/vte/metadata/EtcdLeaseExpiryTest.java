package io.vte.metadata;

import static io.vte.metadata.EtcdMetadataStoreTest.failsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A dead node: a child JVM publishes under its lease and is killed with SIGKILL (no revoke). Its
 * entries must vanish within the TTL plus a margin, the survivor's lookups turn to
 * SEGMENT_NOT_FOUND, and a new process publishing the same name is visible again.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdLeaseExpiryTest {

  // etcd's minimum is about 2 s, but a child JVM starved for 2 s on a loaded machine then loses its
  // lease alive
  private static final long TTL_SECONDS = 5;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension final EtcdStores stores = EtcdStores.onOwnEtcd();
  private MetadataStore survivor;
  private final List<Process> children = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startSurvivor() {
    survivor =
        stores.started(
            new MetadataOptions()
                .setClusterPrefix("/vte/lease")
                .setLeaseTtl(Duration.ofSeconds(TTL_SECONDS)));
  }

  @AfterEach
  void killChildren() throws InterruptedException {
    for (Process p : children) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private Process publisher(String name, String serverName) throws IOException {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                PublisherProcess.class.getName(),
                stores.etcd().uri(),
                "/vte/lease",
                name,
                serverName,
                String.valueOf(TTL_SECONDS))
            .redirectErrorStream(true)
            .start();
    children.add(p);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    Await.until(
        "child published",
        WAIT,
        () -> {
          try {
            String line = out.readLine();
            if (line == null) {
              throw new AssertionError("child exited with " + p.waitFor() + ": " + seen);
            }
            seen.append(line).append('\n');
            return line.equals("PUBLISHED");
          } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
          }
        });
    return p;
  }

  @Test
  void killedNodesEntriesVanishWithinTheTtlAndComeBackWhenItRestarts() throws Exception {
    List<String> invalidated = EtcdStores.invalidationsOf(survivor);
    Process node = publisher("worker-1", "127.0.0.1:7201");
    assertEquals("127.0.0.1:7201", Await.result(survivor.lookup("worker-1"), WAIT).getServerName());
    assertTrue(
        stores
            .etcd()
            .etcdctl("get", "/vte/lease/nodes/", "--prefix", "--keys-only")
            .contains("127.0.0.1:7201"));

    long killedAt = System.nanoTime();
    node.destroyForcibly();
    assertTrue(node.waitFor(10, TimeUnit.SECONDS));

    // Cached until the watch delivers the lease-expiry delete; then the lookup asks etcd and finds
    // nothing.
    Await.until(
        "worker-1 deleted by lease expiry",
        Duration.ofSeconds(TTL_SECONDS + 5),
        () -> failsWith(survivor.lookup("worker-1"), ErrorCode.SEGMENT_NOT_FOUND));
    long vanishedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    System.out.println(
        "lease expiry: entries of a killed node vanished "
            + vanishedMs
            + " ms after SIGKILL (TTL "
            + TTL_SECONDS
            + " s)");
    assertTrue(
        vanishedMs >= 1000,
        "entries vanished " + vanishedMs + " ms after the kill: too early for a lease");
    assertEquals("", stores.etcd().etcdctl("get", "/vte/lease/", "--prefix", "--keys-only").trim());

    int before = invalidated.size();
    publisher("worker-1", "127.0.0.1:7202");
    Await.until("survivor told of the restarted node", WAIT, () -> invalidated.size() > before);
    assertEquals("127.0.0.1:7202", Await.result(survivor.lookup("worker-1"), WAIT).getServerName());
  }
}
