package io.vte.it.hosts;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.it.EngineStats;
import io.vte.it.NodeProcess;
import io.vte.it.RemoteLoad;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.List;

/**
 * Write loads between node processes on namespace hosts: builds the {@code load} command of {@link
 * io.vte.it.NodeMain} and warms paths up before a scenario.
 */
final class HostLoads {

  /** Requests in flight per target, as in the loopback scenarios. */
  static final int SLOTS = 4;

  /** Bytes per request, as in the loopback scenarios. */
  static final int CHUNK = 4 << 20;

  private HostLoads() {}

  /**
   * @param node the receiving node
   * @param engine its engine index
   * @param chunk bytes per request
   * @return a load target: that engine's server and buffer, {@value #SLOTS} slots, every write
   *     checked in the receiver
   */
  static JsonObject target(NodeProcess node, int engine, int chunk) {
    return target(node, engine, chunk, SLOTS);
  }

  /**
   * @param node the receiving node
   * @param engine its engine index
   * @param chunk bytes per request
   * @param slots requests in flight; slots x chunk must fit the node's buffer
   * @return a load target: that engine's server and buffer, and the node's CRC server, which checks
   *     every write in the receiver
   */
  static JsonObject target(NodeProcess node, int engine, int chunk, int slots) {
    JsonObject ready = node.ready(engine);
    return new JsonObject()
        .put("server", ready.getString("server"))
        .put("address", ready.getLong("address"))
        .put("slots", slots)
        .put("chunk", chunk)
        .put("crcServer", ready.getString("crcServer"));
  }

  /**
   * @param at offset from the start of the run
   * @param name fault name
   * @param command the program the sending node runs then
   * @return a load fault
   */
  static JsonObject fault(Duration at, String name, List<String> command) {
    return new JsonObject()
        .put("atMs", at.toMillis())
        .put("name", name)
        .put("command", new JsonArray(command));
  }

  /**
   * @param name the watch's name in the answer
   * @param node the node whose network namespace holds the interface
   * @param iface the interface
   * @param direction {@code rx} or {@code tx}
   * @return a byte counter for the load's {@code watch}
   */
  static JsonObject watch(String name, NodeProcess node, String iface, String direction) {
    return new JsonObject()
        .put("name", name)
        .put("pid", node.process().pid())
        .put("iface", iface)
        .put("direction", direction);
  }

  /**
   * Runs a load and waits for its answer.
   *
   * @param sender the sending node
   * @param engine its engine index
   * @param run how long requests are submitted
   * @param deadline per request
   * @param targets load targets
   * @param faults load faults
   * @param watch byte counters to sample ({@link #watch})
   * @return the node's answer
   * @throws Exception when the node fails or does not answer in time
   */
  static JsonObject run(
      NodeProcess sender,
      int engine,
      Duration run,
      Duration deadline,
      List<JsonObject> targets,
      List<JsonObject> faults,
      List<JsonObject> watch)
      throws Exception {
    JsonObject spec =
        new JsonObject()
            .put("engine", engine)
            .put("seconds", run.toMillis() / 1000.0)
            .put("deadlineMs", deadline.toMillis())
            .put("targets", new JsonArray(targets))
            .put("faults", new JsonArray(faults))
            .put("watch", new JsonArray(watch));
    sender.send("load " + spec.encode());
    return sender.expect("load", run.plus(deadline).plusSeconds(60));
  }

  /**
   * Short undisturbed runs until one is clean and every sender path has its endpoint on both ends
   * (a cold node on a loaded machine may need more than one handshake deadline). At least that
   * many, not exactly: when a scenario runs a second time on the same nodes, the peer's ends of
   * endpoints the first try's faults retired stay until {@code idleEndpointMs} retires them too.
   *
   * @param sender the sending node
   * @param engine its engine index
   * @param targets every target of the scenario
   * @param receivers each target's node, in order
   * @param receiverEngines each target's engine index, in order
   * @param paths per target: the rails the sender uses, one per NIC (each NIC sends to the peer NIC
   *     of its subnet)
   * @return endpoint counts after the warm-up: the sender's, then each receiver's
   */
  static long[] warmUp(
      NodeProcess sender,
      int engine,
      List<JsonObject> targets,
      List<NodeProcess> receivers,
      List<Integer> receiverEngines,
      long paths) {
    String[] last = {null};
    long[] counts = new long[receivers.size() + 1];
    try {
      Await.until(
          "a clean warm-up round with an endpoint on each path",
          Duration.ofSeconds(90),
          () -> {
            try {
              List<RemoteLoad> r =
                  RemoteLoad.of(
                      run(
                          sender,
                          engine,
                          Duration.ofSeconds(2),
                          Duration.ofSeconds(30),
                          targets,
                          List.of(),
                          List.of()));
              boolean clean = r.stream().allMatch(l -> l.failures() == 0);
              counts[0] = stats(sender, engine).endpointsAlive();
              boolean all = counts[0] >= paths * targets.size();
              for (int i = 0; i < receivers.size(); i++) {
                counts[i + 1] = stats(receivers.get(i), receiverEngines.get(i)).endpointsAlive();
                all &= counts[i + 1] >= paths;
              }
              last[0] =
                  (clean ? "clean" : r.get(0).failureSummary())
                      + ", endpoints "
                      + java.util.Arrays.toString(counts);
              return clean && all;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last round: " + last[0], e);
    }
    return counts.clone();
  }

  /**
   * @param node a node
   * @param engine its engine index
   * @return that engine's owner figures
   * @throws Exception when the node does not answer
   */
  static EngineStats stats(NodeProcess node, int engine) throws Exception {
    return EngineStats.fromJson(node.request("stats " + engine, "stats").getJsonObject("stats"));
  }
}
