package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * READ of a write-only region, on the responder of the embedded soft verbs: the engine's public API
 * registers every buffer for remote read and write, so this check runs one layer down, on a
 * connected RC QP pair.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class WriteOnlyRegionTest {

  private static final int LENGTH = 1 << 20;

  private VerbsProvider provider;
  private long localMemory;
  private long remoteMemory;
  private MemoryRegion localMr;
  private MemoryRegion writeOnly;
  private CompletionQueue cq;
  private QueuePair qp;

  @BeforeEach
  void connect() {
    provider =
        VerbsProviders.create(
            "soft",
            new JsonObject().put("devices", JsonArray.of("woA@127.0.0.70", "woB@127.0.0.71")));
    VerbsContext a = provider.open("woA");
    VerbsContext b = provider.open("woB");
    ProtectionDomain pdA = a.allocPd();
    ProtectionDomain pdB = b.allocPd();
    cq = a.createCq(64);
    CompletionQueue cqB = b.createCq(64);
    qp = pdA.createQp(new QpInitAttributes(cq, cq, 16, 1, 0));
    QueuePair qpB = pdB.createQp(new QpInitAttributes(cqB, cqB, 16, 1, 0));
    localMemory = DirectMemory.allocate(LENGTH);
    remoteMemory = DirectMemory.allocate(LENGTH);
    Pattern.fill(localMemory, LENGTH, 1);
    Pattern.fill(remoteMemory, LENGTH, 2);
    localMr = pdA.registerMemory(localMemory, LENGTH, AccessFlags.LOCAL_WRITE);
    writeOnly =
        pdB.registerMemory(
            remoteMemory, LENGTH, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    RcPair.connect(qp, a, qpB, b);
  }

  @AfterEach
  void close() {
    provider.close();
    DirectMemory.free(localMemory);
    DirectMemory.free(remoteMemory);
  }

  private int post(int opcode) {
    WorkRequestBatch wr = WorkRequestBatch.allocate(1);
    wr.add(
        opcode,
        opcode,
        WrFlags.SIGNALED,
        localMemory,
        LENGTH,
        localMr.lkey(),
        remoteMemory,
        writeOnly.rkey());
    assertEquals(PostStatus.OK, qp.postSend(wr), "posted");
    WorkCompletionBatch wc = WorkCompletionBatch.allocate(4);
    Await.until("a completion", Duration.ofSeconds(30), () -> cq.poll(wc) > 0);
    return wc.status(0);
  }

  @Test
  void readOfAWriteOnlyRegionIsRefused() {
    long remoteBefore = Pattern.crc(remoteMemory, LENGTH);
    long localBefore = Pattern.crc(localMemory, LENGTH);
    int status = post(WrOpcode.RDMA_READ);
    assertEquals(WcStatus.REM_ACCESS_ERR, WcStatus.of(status), "READ of a write-only region");
    assertEquals(
        localBefore, Pattern.crc(localMemory, LENGTH), "nothing was read into the requester");
    assertEquals(remoteBefore, Pattern.crc(remoteMemory, LENGTH), "the region is untouched");
    ReliabilityReport.record(
        new ScenarioFigures(
            "access: READ of write-only region (verbs)",
            1,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            "refused with " + WcStatus.of(status)));
  }

  /** The control: the same setup lets a WRITE through, so the refusal above is the access check. */
  @Test
  void writeToTheWriteOnlyRegionLands() {
    assertEquals(WcStatus.SUCCESS, WcStatus.of(post(WrOpcode.RDMA_WRITE)));
    assertEquals(
        Pattern.crc(localMemory, LENGTH), Pattern.crc(remoteMemory, LENGTH), "the write landed");
  }
}
