package io.vte.cli.bench.verbs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.QueuePairs;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import java.nio.ByteBuffer;

/**
 * Two soft devices in this process (soft0 on 127.0.0.1, soft1 on 127.0.0.2), one connected RC QP
 * pair, a source region on soft0 and a target region on soft1: the fixture of the soft-verbs
 * benchmarks.
 */
final class SoftPair implements AutoCloseable {

  final VerbsProvider provider;
  final VerbsContext local;
  final VerbsContext remote;
  final CompletionQueue cq;
  final QueuePair qp;
  final MemoryRegion source;
  final MemoryRegion target;
  private final CompletionQueue remoteCq;
  private final QueuePair remoteQp;

  /**
   * @param bufferBytes size of the source and target regions
   * @param depth send-queue depth
   * @param nicSpinMicros the soft NIC's busy-poll window (see the provider's {@code nicSpinMicros})
   */
  SoftPair(int bufferBytes, int depth, int nicSpinMicros) {
    provider =
        VerbsProviders.create(
            "soft",
            new JsonObject()
                .put("nicSpinMicros", nicSpinMicros)
                .put("devices", JsonArray.of("soft0@127.0.0.1", "soft1@127.0.0.2")));
    local = provider.open("soft0");
    remote = provider.open("soft1");
    ProtectionDomain pdL = local.allocPd();
    ProtectionDomain pdR = remote.allocPd();
    cq = local.createCq(depth * 2);
    remoteCq = remote.createCq(depth * 2);
    qp = pdL.createQp(new QpInitAttributes(cq, cq, depth, 1, 0));
    remoteQp = pdR.createQp(new QpInitAttributes(remoteCq, remoteCq, 1, 1, 0));
    source = pdL.registerMemory(ByteBuffer.allocateDirect(bufferBytes), AccessFlags.LOCAL_WRITE);
    target = pdR.registerMemory(ByteBuffer.allocateDirect(bufferBytes), AccessFlags.ALL_REMOTE);
    RtsAttributes rts = new RtsAttributes(1, 20, 7, 7);
    QueuePairs.connectInProcess(qp, local, rts, remoteQp, remote, rts);
  }

  /** Throws unless every completion in the batch succeeded. */
  static void requireSuccess(WorkCompletionBatch wcs, int n) {
    for (int i = 0; i < n; i++) {
      if (wcs.status(i) != WcStatus.SUCCESS.code()) {
        throw new IllegalStateException(
            "work request " + wcs.wrId(i) + " failed: " + WcStatus.of(wcs.status(i)));
      }
    }
  }

  /** Throws unless a post succeeded. */
  static void requirePosted(int rc) {
    if (rc != PostStatus.OK) {
      throw new IllegalStateException("post failed: " + PostStatus.name(rc));
    }
  }

  @Override
  public void close() {
    provider.close();
  }

  /** One busy-poll round: the consumer moves its QPs' bytes, then takes completions. */
  static int progressAndPoll(CompletionQueue cq, WorkCompletionBatch wcs) {
    cq.progress();
    return cq.poll(wcs);
  }
}
