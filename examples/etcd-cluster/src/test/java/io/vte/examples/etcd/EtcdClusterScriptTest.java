package io.vte.examples.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs run-cluster.sh with the vte command on this module's class path and etcd on free ports. */
class EtcdClusterScriptTest {

  @TempDir Path dir;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void threeNodesOnEtcdAreReachedBySegmentNameAndStopCleanly() throws Exception {
    // fail, not skip: the README's test command installs etcd-server and etcd-client
    assertTrue(
        Files.isExecutable(Paths.get("/usr/bin/etcd"))
            || Files.isExecutable(Paths.get("/usr/local/bin/etcd")),
        "etcd is not installed: apt-get install -y etcd-server (see examples/etcd-cluster/README.md)");
    assertTrue(
        Files.isExecutable(Paths.get("/usr/bin/etcdctl"))
            || Files.isExecutable(Paths.get("/usr/local/bin/etcdctl")),
        "etcdctl is not installed: apt-get install -y etcd-client (see examples/etcd-cluster/README.md)");
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Path classpath = dir.resolve("cp.txt");
    Files.writeString(classpath, System.getProperty("java.class.path"));
    Path log = dir.resolve("run.log");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "run-cluster.sh")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment()
        .put(
            "VTE",
            java
                + " -Xmx256m -cp "
                + System.getProperty("java.class.path")
                + " io.vte.cli.VteMain");
    pb.environment().put("ETCD_PORT", Integer.toString(freePort()));
    pb.environment().put("ETCD_PEER_PORT", Integer.toString(freePort()));
    Process script = pb.start();
    boolean done = script.waitFor(4, TimeUnit.MINUTES);
    if (!done) {
      script.destroy();
      script.waitFor(30, TimeUnit.SECONDS);
    }
    String out = Files.readString(log);
    assertTrue(done, "script did not finish within 4 minutes:\n" + out);
    assertEquals(0, script.exitValue(), out);
    assertTrue(out.contains("run-cluster: 3/3 nodes reached by segment name"), out);
    assertTrue(out.contains("run-cluster: 3/3 nodes stopped cleanly"), out);
    for (String node : new String[] {"node-a", "node-b", "node-c"}) {
      assertTrue(
          out.contains("segment " + node + " "),
          "node printed its segment name " + node + ":\n" + out);
    }
    assertTrue(out.lines().filter(l -> l.endsWith("rail(s), 0 not ok")).count() == 3, out);
  }
}
