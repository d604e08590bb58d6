package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A node over soft verbs playing the engine layer: a soft provider with its own devices, one local
 * context per device, one direct buffer registered on every device, and slice building with real
 * keys.
 */
final class SoftNode {

  private static final Duration WAIT = Duration.ofSeconds(30);

  final String prefix;
  final SoftVerbsProvider provider;
  final TestNode node;
  final OwnerConfig config;
  final List<LocalContext> contexts = new ArrayList<>();
  final List<MemoryRegion> regions = new ArrayList<>();
  final ByteBuffer memory;
  final long base;
  private final Map<String, Rail> rails = new ConcurrentHashMap<>();
  private final UnaryOperator<VerbsContext> wrap;
  private OwnerRouter router;

  private SoftNode(
      String prefix,
      SoftVerbsProvider provider,
      TestNode node,
      OwnerConfig config,
      int memoryBytes,
      UnaryOperator<VerbsContext> wrap) {
    this.prefix = prefix;
    this.wrap = wrap;
    this.config = config;
    this.provider = provider;
    this.node = node;
    this.memory = ByteBuffer.allocateDirect(memoryBytes);
    this.base = DirectMemory.address(memory);
  }

  /** Starts a node with {@code devices} soft devices named {@code prefix0..}, all on 127.0.0.1. */
  static SoftNode start(
      Vertx vertx, String prefix, int devices, OwnerConfig config, int memoryBytes) {
    return start(vertx, prefix, devices, config, memoryBytes, UnaryOperator.identity());
  }

  /** As above, each opened device seen through {@code wrap} (a device that misbehaves). */
  static SoftNode start(
      Vertx vertx,
      String prefix,
      int devices,
      OwnerConfig config,
      int memoryBytes,
      UnaryOperator<VerbsContext> wrap) {
    List<String> list = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      list.add(prefix + i + "@127.0.0.1");
    }
    SoftVerbsProvider provider =
        (SoftVerbsProvider)
            new SoftVerbsProviderFactory().create(new SoftVerbsConfig().setDevices(list));
    TestNode node = Await.result(TestNode.start(vertx), WAIT);
    SoftNode n = new SoftNode(prefix, provider, node, config, memoryBytes, wrap);
    for (int i = 0; i < devices; i++) {
      n.contexts.add(null);
      n.regions.add(null);
      n.openDevice(i);
    }
    return n;
  }

  /** Opens device {@code i} (again): a fresh local context with the memory registered on it. */
  void openDevice(int i) {
    LocalContext ctx =
        Await.result(node.addDevice(wrap.apply(provider.open(prefix + i)), config), WAIT);
    contexts.set(i, ctx);
    regions.set(i, ctx.registerMemory(memory, AccessFlags.ALL_REMOTE));
    router = new OwnerRouter(contexts);
  }

  /** Closes device {@code i}'s context (and the device). */
  void closeDevice(int i) {
    Await.result(node.removeDevice(contexts.get(i)), WAIT);
  }

  /**
   * @return endpoints alive over every owner of every context
   */
  long endpointsAlive() {
    long n = 0;
    for (LocalContext ctx : contexts) {
      for (int o = 0; o < ctx.ownerCount(); o++) {
        n += ctx.ownerMetrics(o).endpointsAlive();
      }
    }
    return n;
  }

  String device(int i) {
    return prefix + i;
  }

  String serverName() {
    return node.serverName();
  }

  OwnerRouter router() {
    return router;
  }

  Rail rail(int local, SoftNode peer, int remote) {
    String key = local + ">" + peer.serverName() + "@" + remote;
    return rails.computeIfAbsent(
        key, k -> new Rail(local, device(local), peer.serverName(), peer.device(remote)));
  }

  /** A slice between this node's memory and {@code peer}'s, over rail (local, remote). */
  Slice slice(
      SliceCallback callback,
      int index,
      int opcode,
      long localOffset,
      SoftNode peer,
      long remoteOffset,
      int length,
      int local,
      int remote) {
    Slice s =
        new Slice(callback, index, opcode, base + localOffset, peer.base + remoteOffset, length);
    s.assign(rail(local, peer, remote), regions.get(local).lkey(), peer.regions.get(remote).rkey());
    return s;
  }

  /** Re-assigns a slice to another rail with the right keys. */
  void reassign(Slice s, SoftNode peer, int local, int remote) {
    s.assign(rail(local, peer, remote), regions.get(local).lkey(), peer.regions.get(remote).rkey());
  }

  Future<Void> close() {
    return node.close().onComplete(ar -> provider.close());
  }
}
