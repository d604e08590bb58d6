package io.vte.engine.impl;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.unit.Async;
import io.vertx.ext.unit.TestContext;
import io.vertx.ext.unit.TestOptions;
import io.vertx.ext.unit.TestSuite;
import io.vertx.ext.unit.report.ReportOptions;
import io.vte.api.EngineOptions;
import io.vte.api.Notification;
import io.vte.api.TransferEngine;
import io.vte.handshake.ConnectionFaults;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Notifications exactly once, as a Vert.x Unit suite run under JUnit 5: three senders notify one
 * receiver while the receiver's handshake server resets the connection of some Notify calls, before
 * it sees them (the request is lost) or after it answered (the reply is lost, so the sender sends
 * the same notification again over a new connection). Every step is asynchronous on the suite's
 * Vert.x instance; nothing blocks an event loop.
 */
@ExtendWith(BlockedThreadGuard.class)
class NotificationExactlyOnceSuiteTest {

  private static final int SENDERS = 3;
  private static final int PER_SENDER = 1_000;
  private static final long SUITE_TIMEOUT_MS = 240_000;
  private static final long AWAIT_MS = 60_000;
  private static final double LOST_REQUESTS = 0.03;
  private static final double LOST_REPLIES = 0.03;

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void closeVertx() {
    Await.result(vertx.close(), Duration.ofSeconds(30));
  }

  /** The engines of one test and what the receiver delivered, per sender in arrival order. */
  private static final class Mesh {
    TransferEngineImpl receiver;
    final List<TransferEngineImpl> senders = new ArrayList<>();
    final Map<String, List<String>> delivered = new ConcurrentHashMap<>();

    int deliveredCount() {
      int n = 0;
      for (List<String> l : delivered.values()) {
        synchronized (l) {
          n += l.size();
        }
      }
      return n;
    }

    List<String> from(TransferEngineImpl sender) {
      List<String> l = delivered.getOrDefault(sender.serverName(), List.of());
      synchronized (l) {
        return new ArrayList<>(l);
      }
    }

    void record(Notification n) {
      List<String> l = delivered.computeIfAbsent(n.from(), f -> new ArrayList<>());
      synchronized (l) {
        l.add(n.payload().toString());
      }
    }
  }

  private static EngineOptions options(String prefix) {
    return EngineFixture.options(prefix, 1, 1);
  }

  private Future<TransferEngineImpl> start(EngineOptions options) {
    return TransferEngine.create(vertx, options).map(e -> (TransferEngineImpl) e);
  }

  @Test
  void everyNotificationIsDeliveredOnceInOrderThroughLostFramesAndReconnects() {
    TestSuite suite = TestSuite.create("notifications exactly once");
    suite.beforeEach(this::startMesh);
    suite.afterEach(this::closeMesh);
    suite.test("3 senders x 1000 through lost requests and replies", this::exactlyOnce);
    suite.test("a restarted sender's notifications are new, not duplicates", this::senderRestart);
    suite
        .run(vertx, new TestOptions().addReporter(new ReportOptions().setTo("console")))
        .awaitSuccess(SUITE_TIMEOUT_MS);
  }

  private void startMesh(TestContext ctx) {
    Async started = ctx.async();
    Mesh mesh = new Mesh();
    ctx.put("mesh", mesh);
    start(options("nx"))
        .compose(
            receiver -> {
              mesh.receiver = receiver;
              receiver.notificationHandler(mesh::record);
              List<Future<TransferEngineImpl>> all = new ArrayList<>();
              for (int s = 0; s < SENDERS; s++) {
                all.add(start(options("ns" + s)));
              }
              return Future.all(all);
            })
        .onSuccess(
            all -> {
              for (int s = 0; s < SENDERS; s++) {
                mesh.senders.add(all.resultAt(s));
              }
              started.complete();
            })
        .onFailure(ctx::fail);
  }

  private void closeMesh(TestContext ctx) {
    Mesh mesh = ctx.get("mesh");
    Async closed = ctx.async();
    List<Future<Void>> all = new ArrayList<>();
    for (TransferEngineImpl s : mesh.senders) {
      all.add(s.close());
    }
    if (mesh.receiver != null) {
      all.add(mesh.receiver.close());
    }
    Future.join(all).onComplete(done -> closed.complete());
  }

  /** Sends {@code count} numbered notifications from {@code sender}, each after the previous. */
  private static Future<Void> sendAll(
      TransferEngineImpl sender, String receiver, String label, int count) {
    List<Future<Void>> sent = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      sent.add(sender.notify(receiver, "kv", Buffer.buffer(label + i)));
    }
    return Future.all(sent).mapEmpty();
  }

  private static List<String> expected(String label, int count) {
    List<String> l = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      l.add(label + i);
    }
    return l;
  }

  /** Runs {@code step} on {@code context} and completes with it. */
  private static <T> Future<T> on(Context context, Supplier<Future<T>> step) {
    Promise<T> done = Promise.promise();
    context.runOnContext(v -> step.get().onComplete(done));
    return done.future();
  }

  /** Completes when {@code condition} holds, polled every 10 ms; fails after {@code timeoutMs}. */
  private Future<Void> until(String what, long timeoutMs, BooleanSupplier condition) {
    Promise<Void> done = Promise.promise();
    long giveUp = System.nanoTime() + timeoutMs * 1_000_000;
    vertx.setPeriodic(
        1,
        10,
        id -> {
          if (condition.getAsBoolean()) {
            vertx.cancelTimer(id);
            done.tryComplete();
          } else if (System.nanoTime() > giveUp) {
            vertx.cancelTimer(id);
            done.tryFail(new AssertionError("not within " + timeoutMs + " ms: " + what));
          }
        });
    return done.future();
  }

  private void exactlyOnce(TestContext ctx) {
    Mesh mesh = ctx.get("mesh");
    ConnectionFaults faults = EngineInternals.controlPlaneFaults(mesh.receiver);
    faults.resetConnections("Notify", LOST_REQUESTS, LOST_REPLIES, 41);
    Async checked = ctx.async();
    List<Future<Void>> all = new ArrayList<>();
    for (TransferEngineImpl s : mesh.senders) {
      all.add(sendAll(s, mesh.receiver.serverName(), "m", PER_SENDER));
    }
    Future.all(all)
        .compose(
            sent ->
                until(
                    "every notification delivered",
                    AWAIT_MS,
                    () -> mesh.deliveredCount() >= SENDERS * PER_SENDER))
        // A duplicate delivered late would show here: give one more round trip's time.
        .compose(v -> vertx.timer(200).mapEmpty())
        .onComplete(
            ctx.asyncAssertSuccess(
                v -> {
                  ctx.assertTrue(
                      faults.resetsBeforeHandling() > 0, "some requests were lost on the way");
                  ctx.assertTrue(faults.resetsAfterAnswer() > 0, "some replies were lost");
                  long resent = 0;
                  for (TransferEngineImpl s : mesh.senders) {
                    ctx.assertEquals(
                        expected("m", PER_SENDER),
                        mesh.from(s),
                        "each of " + s.serverName() + "'s notifications once, in order");
                    resent += EngineInternals.notificationsResent(s);
                  }
                  ctx.assertEquals(SENDERS * PER_SENDER, mesh.deliveredCount());
                  ctx.assertTrue(
                      resent >= faults.resetsBeforeHandling() + faults.resetsAfterAnswer(),
                      "every lost request or reply was resent: "
                          + resent
                          + " resent, "
                          + faults.resetsBeforeHandling()
                          + " requests and "
                          + faults.resetsAfterAnswer()
                          + " replies lost, "
                          + EngineInternals.notificationDuplicatesDropped(mesh.receiver)
                          + " duplicates");
                  long duplicates = EngineInternals.notificationDuplicatesDropped(mesh.receiver);
                  // Each lost reply brings one copy back; an attempt timed out on a slow machine
                  // may bring one more, never more copies than were resent.
                  ctx.assertTrue(
                      duplicates >= faults.resetsAfterAnswer() && duplicates <= resent,
                      "each copy resent after a lost reply was dropped as a duplicate: "
                          + duplicates
                          + " duplicates, "
                          + faults.resetsAfterAnswer()
                          + " replies lost, "
                          + resent
                          + " resent");
                  System.out.printf(
                      "exactly-once: %d delivered of %d sent, %d requests and %d replies lost,"
                          + " %d resent, %d duplicates dropped%n",
                      mesh.deliveredCount(),
                      SENDERS * PER_SENDER,
                      faults.resetsBeforeHandling(),
                      faults.resetsAfterAnswer(),
                      resent,
                      EngineInternals.notificationDuplicatesDropped(mesh.receiver));
                  checked.complete();
                }));
  }

  private void senderRestart(TestContext ctx) {
    Mesh mesh = ctx.get("mesh");
    ConnectionFaults faults = EngineInternals.controlPlaneFaults(mesh.receiver);
    faults.resetConnections("Notify", LOST_REQUESTS, LOST_REPLIES, 7);
    TransferEngineImpl first = mesh.senders.get(0);
    String name = first.serverName();
    int port = Integer.parseInt(name.substring(name.lastIndexOf(':') + 1));
    String receiver = mesh.receiver.serverName();
    int count = 100;
    Context testContext = vertx.getOrCreateContext();
    Async checked = ctx.async();
    sendAll(first, receiver, "old", count)
        .compose(v -> first.close())
        // The close completes on the closed engine's context: deploy the new one from the test's.
        .compose(v -> on(testContext, () -> start(options("ns0").setRpcPort(port))))
        .compose(
            again -> {
              mesh.senders.set(0, again);
              ctx.assertEquals(name, again.serverName(), "the same name");
              return sendAll(again, receiver, "new", count);
            })
        .compose(
            v ->
                until(
                    "the restarted sender's notifications",
                    AWAIT_MS,
                    () -> mesh.from(mesh.senders.get(0)).size() >= 2 * count))
        .onComplete(
            ctx.asyncAssertSuccess(
                v -> {
                  List<String> want = expected("old", count);
                  want.addAll(expected("new", count));
                  ctx.assertEquals(
                      want,
                      mesh.from(mesh.senders.get(0)),
                      "the new incarnation's notifications, numbered from 1 again, are new");
                  checked.complete();
                }));
  }
}
