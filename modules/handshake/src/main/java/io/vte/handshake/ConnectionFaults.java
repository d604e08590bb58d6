package io.vte.handshake;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Faults a {@link HandshakeServer} injects into its own connections, for tests and fault drills:
 * for a fraction of the calls of one method it closes the HTTP/2 connection carrying the call,
 * either before the handler sees the call (the request is lost) or once the handler has answered,
 * instead of writing the answer (the reply is lost: the work was done, the caller does not know).
 * Either way the caller's call fails and its next call opens a new connection. The picks come from
 * a seeded generator, so a run can be repeated. Off until {@link #resetConnections} is called.
 * Thread-safe.
 */
public final class ConnectionFaults {

  private volatile Setting setting;
  private final LongAdder resetsBefore = new LongAdder();
  private final LongAdder resetsAfter = new LongAdder();

  private record Setting(
      String method, String path, double before, double after, SplittableRandom random) {

    double pick() {
      synchronized (random) {
        return random.nextDouble();
      }
    }
  }

  ConnectionFaults() {}

  /**
   * Resets the connections of a fraction of the calls of {@code method} from now on, replacing any
   * earlier setting.
   *
   * @param method the service method, e.g. {@code Notify}
   * @param beforeHandling fraction 0..1 of its calls lost before the handler sees them
   * @param afterAnswer fraction 0..1 of its calls whose answer is lost after the handler answered
   * @param seed generator seed
   * @throws IllegalArgumentException when a fraction is outside 0..1
   */
  public void resetConnections(
      String method, double beforeHandling, double afterAnswer, long seed) {
    if (!(beforeHandling >= 0 && afterAnswer >= 0 && beforeHandling <= 1 && afterAnswer <= 1)) {
      throw new IllegalArgumentException(
          "fractions must be in 0..1, got " + beforeHandling + " and " + afterAnswer);
    }
    setting =
        new Setting(
            method,
            "/vte.handshake.v1.Handshake/" + method,
            beforeHandling,
            afterAnswer,
            new SplittableRandom(seed));
  }

  /** Stops resetting connections. */
  public void clear() {
    setting = null;
  }

  /**
   * @return calls whose connection was reset before the handler saw them
   */
  public long resetsBeforeHandling() {
    return resetsBefore.sum();
  }

  /**
   * @return calls whose connection was reset after the handler answered
   */
  public long resetsAfterAnswer() {
    return resetsAfter.sum();
  }

  /**
   * @return {@code next} behind the faults that lose requests
   */
  Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next) {
    return request -> {
      Setting s = setting;
      if (s != null && s.path.equals(request.path()) && s.pick() < s.before) {
        resetsBefore.increment();
        request.connection().close();
        return;
      }
      next.handle(request);
    };
  }

  /**
   * @param method the method of a call whose handler has answered
   * @return true when its answer is to be lost: the connection is closed instead
   */
  boolean losesAnswer(String method) {
    Setting s = setting;
    if (s == null || !s.method.equals(method) || s.pick() >= s.after) {
      return false;
    }
    resetsAfter.increment();
    return true;
  }
}
