package io.vte.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that fails a test when Vert.x reports a blocked event loop or worker during
 * it.
 *
 * <p>Vert.x logs blocked threads through {@code io.vertx.core.impl.BlockedThreadChecker}; the build
 * runs tests with Vert.x logging on JUL (see the root pom), so a JUL handler on that logger sees
 * every warning. Use with {@code @ExtendWith(BlockedThreadGuard.class)}. Before the first guarded
 * test of a JVM it makes one HTTP/2 connection ({@code Http2WarmUp}), so that Netty's and Vert.x's
 * cost of first use is not blamed on that test.
 */
public final class BlockedThreadGuard
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {

  /** Logger name the Vert.x blocked-thread checker logs through. */
  public static final String CHECKER_LOGGER = "io.vertx.core.impl.BlockedThreadChecker";

  private static final List<String> WARNINGS = new CopyOnWriteArrayList<>();
  private static final Logger CHECKER = Logger.getLogger(CHECKER_LOGGER);

  static {
    CHECKER.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
              WARNINGS.add(String.valueOf(record.getMessage()));
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
  }

  /** Creates the extension (JUnit instantiates it). */
  public BlockedThreadGuard() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    Http2WarmUp.once();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    WARNINGS.clear();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!WARNINGS.isEmpty()) {
      String first = WARNINGS.get(0);
      int n = WARNINGS.size();
      WARNINGS.clear();
      throw new AssertionError(
          "Vert.x reported " + n + " blocked-thread warning(s); first: " + first);
    }
  }

  /**
   * Returns and forgets the warnings seen so far, for tests that provoke a blocked thread on
   * purpose.
   *
   * @return the warnings since the current test began
   */
  public static List<String> drain() {
    List<String> seen = List.copyOf(WARNINGS);
    WARNINGS.removeAll(seen);
    return seen;
  }
}
