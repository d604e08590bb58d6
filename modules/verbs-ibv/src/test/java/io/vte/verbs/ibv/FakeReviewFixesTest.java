package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.Gid;
import io.vte.verbs.GidType;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpState;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.ibv.device.IbvDeviceReport;
import io.vte.verbs.ibv.device.IbvGidType;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The fixes of the hardware review, one test each, against the fake libibverbs. */
@Tag("fake")
class FakeReviewFixesTest {

  private static final byte[] MAPPED_7 = FakeIbverbs.gid("::ffff:10.0.0.7");
  private static final byte[] MAPPED_8 = FakeIbverbs.gid("::ffff:10.0.0.8");

  @BeforeEach
  void reset() {
    FakeIbverbs.reset();
  }

  @AfterEach
  void nothingLeft() {
    FakeIbverbs.assertNothingLive();
  }

  private static IbvSettings with(JsonObject config) {
    return IbvSettings.fromJson(config);
  }

  @Test
  void theGidTableIsReadOnceAndReReadOnGidChange() {
    try (FakeRig rig = new FakeRig()) {
      rig.context.queryPort(1);
      FakeIbverbs.clearLog();
      for (int i = 0; i < 3; i++) {
        rig.context.queryPort(1);
      }
      assertEquals(List.of(), FakeIbverbs.lines("ibv_query_gid"), "no GID scan per handshake");
      assertEquals(3, FakeIbverbs.lines("ibv_query_port").size());
      assertTrue(
          FakeIbverbs.lines("ibv_query_port").stream().allMatch(l -> l.endsWith("path=extended")),
          "the shim queries ports through the extended context op, as on mlx5");
      FakeIbverbs.setGid(1, 0, MAPPED_7, FakeIbverbs.ROCE_V2);
      assertTrue(FakeIbverbs.pushAsyncEvent(AsyncEventType.GID_CHANGE.code(), 1));
      Await.until(
          "the new GID is used after GID_CHANGE",
          Duration.ofSeconds(10),
          () -> rig.context.queryPort(1).gid().equals(Gid.fromBytes(MAPPED_7)));
    }
  }

  @Test
  void aRocePortWithoutUsableGidFailsAtPortQuery() {
    FakeIbverbs.setGid(1, 0, new byte[16], FakeIbverbs.ROCE_V2);
    try (FakeRig rig = new FakeRig()) {
      VerbsException e = assertThrows(VerbsException.class, () -> rig.context.queryPort(1));
      assertEquals(VerbsError.NO_DEVICE, e.error());
      assertTrue(
          e.getMessage().contains("port 1 of 'fake_mlx5_0' has no usable GID"), e.getMessage());
      assertTrue(e.getMessage().contains("RoCE needs one"), e.getMessage());
    }
  }

  @Test
  void anActiveInfiniBandPortWithLidZeroIsRefused() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 0, FakeIbverbs.LINK_INFINIBAND, 1);
    try (FakeRig rig = new FakeRig()) {
      VerbsException e = assertThrows(VerbsException.class, () -> rig.context.queryPort(1));
      assertTrue(e.getMessage().contains("LID 0: no subnet manager"), e.getMessage());
    }
  }

  @Test
  void theGidIsChosenByAddressAndType() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 2);
    FakeIbverbs.setGid(1, 0, MAPPED_7, FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(1, 1, MAPPED_8, FakeIbverbs.ROCE_V2);
    assertEquals(
        0, FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidAddress", "10.0.0.7"))));
    assertEquals(1, FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidType", "roce-v2"))));
    assertEquals(0, FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidType", "roce-v1"))));
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () ->
                FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidAddress", "10.9.9.9"))));
    assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
    assertTrue(e.getMessage().contains("matching gidAddress=10.9.9.9"), e.getMessage());
    assertThrows(VteException.class, () -> with(new JsonObject().put("gidType", "v3")));
  }

  @Test
  void thePortReportsTheTypeOfTheGidItChoseSoTheHandshakeCanCompareIt() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 2);
    FakeIbverbs.setGid(1, 0, MAPPED_7, FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(1, 1, MAPPED_8, FakeIbverbs.ROCE_V2);
    for (Map.Entry<String, GidType> c :
        Map.of("roce-v1", GidType.ROCE_V1, "roce-v2", GidType.ROCE_V2).entrySet()) {
      try (IbvProvider p = new IbvProvider(with(new JsonObject().put("gidType", c.getKey())));
          VerbsContext ctx = p.open("fake_mlx5_0")) {
        assertEquals(c.getValue(), ctx.queryPort(1).gidType(), c.getKey());
      }
    }
  }

  @Test
  void theGidIsChosenByNetdev() throws Exception {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 2);
    FakeIbverbs.setGid(1, 0, MAPPED_7, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 1, MAPPED_8, FakeIbverbs.ROCE_V2);
    int lo = NetworkInterface.getByName("lo").getIndex();
    FakeIbverbs.setGidIfindex(1, 0, lo + 1000);
    FakeIbverbs.setGidIfindex(1, 1, lo);
    assertEquals(0, FakeDeviceTest.selectedIndex(new IbvSettings()), "lowest index on ties");
    assertEquals(1, FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidNetdev", "lo"))));
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () ->
                FakeDeviceTest.selectedIndex(with(new JsonObject().put("gidNetdev", "vte-none0"))));
    assertTrue(e.getMessage().contains("no netdev named 'vte-none0'"), e.getMessage());
  }

  @Test
  void trafficClassAndServiceLevelReachTheAddressVector() {
    try (FakePair pair =
        new FakePair(with(new JsonObject().put("trafficClass", 106).put("serviceLevel", 3)))) {
      assertEquals(QpState.RTS, pair.a.state());
      Map<String, String> rtr =
          FakeIbverbs.fields(
              FakeIbverbs.lines("ibv_modify_qp").stream()
                  .filter(l -> l.contains(" state=2"))
                  .findFirst()
                  .orElseThrow());
      assertEquals("106", rtr.get("traffic_class"));
      assertEquals("3", rtr.get("sl"));
    }
    assertThrows(VteException.class, () -> with(new JsonObject().put("serviceLevel", 16)));
  }

  @Test
  void sizesAboveTheDeviceCapsAreRejectedNamingTheLimit() {
    try (FakeRig rig = new FakeRig()) {
      VerbsException qp =
          assertThrows(
              VerbsException.class,
              () -> rig.pd.createQp(new QpInitAttributes(rig.cq, rig.cq, 40000, 1, 0)));
      assertTrue(
          qp.getMessage().contains("exceed 16384, half of max_qp_wr 32768")
              && qp.getMessage().contains("'readBackVerify'"),
          qp.getMessage());
      VerbsException cq = assertThrows(VerbsException.class, () -> rig.context.createCq(1 << 22));
      assertTrue(cq.getMessage().contains("1..2097151, half of max_cqe 4194303"), cq.getMessage());
    }
    try (IbvProvider provider = new IbvProvider(new IbvSettings().setReadBackVerify(false));
        VerbsContext context = provider.open("fake_mlx5_0")) {
      CompletionQueue cq = context.createCq(1);
      VerbsException qp =
          assertThrows(
              VerbsException.class,
              () -> context.allocPd().createQp(new QpInitAttributes(cq, cq, 40000, 1, 0)));
      assertTrue(qp.getMessage().contains("exceed max_qp_wr 32768"), qp.getMessage());
      VerbsException big = assertThrows(VerbsException.class, () -> context.createCq(1 << 23));
      assertTrue(big.getMessage().contains("max_cqe 4194303"), big.getMessage());
    }
  }

  @Test
  void cqsAreSpreadOverTheCompletionVectors() {
    try (FakeRig rig = new FakeRig()) {
      for (int i = 0; i < 4; i++) {
        rig.context.createCq(8);
      }
      List<String> vectors = new ArrayList<>();
      for (String line : FakeIbverbs.lines("ibv_create_cq")) {
        vectors.add(FakeIbverbs.fields(line).get("comp_vector"));
      }
      assertEquals(List.of("0", "1", "2", "3", "0"), vectors);
    }
  }

  @Test
  void theAsyncThreadSurvivesAFailedPoll() {
    try (FakeRig rig = new FakeRig()) {
      List<AsyncEvent> events = new CopyOnWriteArrayList<>();
      rig.context.setAsyncEventHandler(events::add);
      FakeIbverbs.failNext("ibv_get_async_event", 5, -1);
      assertTrue(FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ERR.code(), 1));
      Await.until(
          "the event is delivered after the failed read",
          Duration.ofSeconds(10),
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ERR));
      assertTrue(FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ACTIVE.code(), 1));
      Await.until(
          "and the next one",
          Duration.ofSeconds(10),
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ACTIVE));
    }
  }

  @Test
  void theCompletionChannelThreadSurvivesAFailedRead() {
    try (FakeRig rig = new FakeRig()) {
      AtomicInteger wakeUps = new AtomicInteger();
      rig.cq.setNotificationHandler(cq -> wakeUps.incrementAndGet());
      FakeIbverbs.failNext("ibv_get_cq_event", 5, -1);
      assertEquals(0, rig.cq.requestNotify());
      assertTrue(FakeIbverbs.pushCompletion(0, 1, 0, 1, 8, rig.qp.qpNum(), 0, 0, 0));
      Await.until(
          "the wake-up is delivered after the failed read",
          Duration.ofSeconds(10),
          () -> wakeUps.get() == 1);
      assertEquals(0, rig.cq.requestNotify());
      assertTrue(FakeIbverbs.pushCompletion(0, 2, 0, 1, 8, rig.qp.qpNum(), 0, 0, 0));
      Await.until("and the next one", Duration.ofSeconds(10), () -> wakeUps.get() == 2);
    }
  }

  @Test
  void aFailedRequestForNotificationIsACqError() {
    try (FakeRig rig = new FakeRig()) {
      FakeIbverbs.failNext("ibv_req_notify_cq", 22, 0);
      assertEquals(PostStatus.CQ_ERROR, rig.cq.requestNotify());
      assertEquals(0, rig.cq.requestNotify());
    }
  }

  @Test
  void aPollErrorAfterPartialCompletionsKeepsBoth() {
    try (FakeRig rig = new FakeRig()) {
      for (int i = 0; i < 70; i++) {
        FakeIbverbs.pushCompletion(0, i, 0, 1, 8, rig.qp.qpNum(), 0, 0, 0);
      }
      FakeIbverbs.failNextAfter("ibv_poll_cq", 5, 0, 1);
      WorkCompletionBatch out = WorkCompletionBatch.allocate(128);
      assertEquals(64, rig.cq.poll(out), "the first chunk is delivered");
      assertEquals(63, out.wrId(63));
      assertEquals(PostStatus.CQ_ERROR, rig.cq.poll(out), "then the error, not dropped");
    }
  }

  @Test
  void enomemAtRegistrationNamesRlimitMemlock() {
    try (FakeRig rig = new FakeRig()) {
      long address = DirectMemory.allocate(4096);
      try {
        FakeIbverbs.failNext("ibv_reg_mr", 12, -1);
        VerbsException e =
            assertThrows(VerbsException.class, () -> rig.pd.registerMemory(address, 4096, 1));
        assertTrue(e.getMessage().contains("RLIMIT_MEMLOCK"), e.getMessage());
      } finally {
        DirectMemory.free(address);
      }
    }
  }

  @Test
  void forkInitIsOffByDefaultAndWhenOnRunsOnceBeforeTheFirstDeviceList() throws Exception {
    // in a fresh process: ibv_fork_init must come before any other verbs call of the process
    String library = System.getProperty("vte.ibv.fake.library");
    List<String> fake = List.of("-Dvte.ibv.fake.library=" + library);
    Path dir = Path.of(library).getParent();
    String out = ForkedJvm.run(dir, fake, PrintForkInitOrder.class);
    assertTrue(out.lines().toList().contains("fork_inits=1 lists_before_fork_init=0"), out);
    // the fake notices a device list that came first
    out = ForkedJvm.run(dir, fake, PrintForkInitOrder.class, "list-first");
    assertTrue(out.lines().toList().contains("fork_inits=1 lists_before_fork_init=1"), out);
    // off by default: registered memory of a JVM that only forks to exec needs no MADV_DONTFORK
    out = ForkedJvm.run(dir, fake, PrintForkInitOrder.class, "defaults");
    assertTrue(out.lines().anyMatch(l -> l.startsWith("fork_inits=0 ")), out);
  }

  @Test
  void describeShowsCapsGidTypesAndProblems() {
    FakeIbverbs.setDevices(new String[] {"fake_mlx5_0"}, 2);
    FakeIbverbs.setGid(2, 0, new byte[16], FakeIbverbs.ROCE_V2);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      IbvDeviceReport r = p.describe("fake_mlx5_0");
      assertEquals(32768, r.caps().maxQpWr());
      assertEquals(4, r.caps().compVectors());
      assertEquals(IbvGidType.ROCE_V1, r.ports().get(0).gids().get(0).type());
      assertEquals(4096, r.ports().get(0).maxMtu());
      assertEquals(1, r.problems().size(), r.problems().toString());
      assertTrue(r.problems().get(0).contains("port 2"), r.problems().toString());
      assertTrue(r.gidTypesFromVerbs());
    }
  }
}
