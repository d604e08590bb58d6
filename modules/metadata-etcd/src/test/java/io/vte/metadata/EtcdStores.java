package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vte.api.MetadataOptions;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An etcd, and the Vert.x and the metadata stores of one test. Registered with
 * {@code @RegisterExtension}, it starts a Vert.x (and an etcd, when each test has its own) before
 * each test and after it closes the stores, then Vert.x, then that etcd. An etcd the class shares
 * starts before its first test and stops after its last.
 */
final class EtcdStores
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final Supplier<EtcdServer> classEtcd;
  private final List<MetadataStore> stores = new CopyOnWriteArrayList<>();
  private EtcdServer etcd;
  private Vertx vertx;

  private EtcdStores(Supplier<EtcdServer> classEtcd) {
    this.classEtcd = classEtcd;
  }

  /**
   * Stores on one etcd for the whole class; register it on a static field.
   *
   * @param start starts the class's etcd (and sets it up)
   * @return the fixture
   */
  static EtcdStores onClassEtcd(Supplier<EtcdServer> start) {
    return new EtcdStores(start);
  }

  /**
   * Stores on a fresh etcd for each test.
   *
   * @return the fixture
   */
  static EtcdStores onOwnEtcd() {
    return new EtcdStores(null);
  }

  /** The etcd of the running test. */
  EtcdServer etcd() {
    return etcd;
  }

  /** The Vert.x of the running test. */
  Vertx vertx() {
    return vertx;
  }

  /**
   * Creates a store on this test's Vert.x and etcd that the fixture closes after the test.
   *
   * @param options the store's options
   * @return the store, not started
   */
  MetadataStore create(MetadataOptions options) {
    MetadataStore store = MetadataStores.create(vertx, etcd.uri(), options);
    stores.add(store);
    return store;
  }

  /**
   * Creates and starts a store that the fixture closes after the test.
   *
   * @param options the store's options
   * @return the started store
   */
  MetadataStore started(MetadataOptions options) {
    MetadataStore store = create(options);
    Await.result(store.start(), WAIT);
    return store;
  }

  /**
   * Records, in order, the segment names a store is told changed.
   *
   * @param store the store whose invalidation handler to set
   * @return the names seen so far, safe to read from any thread
   */
  static List<String> invalidationsOf(MetadataStore store) {
    List<String> seen = new CopyOnWriteArrayList<>();
    store.setInvalidationHandler(seen::add);
    return seen;
  }

  /**
   * Publishes a descriptor through one store and checks that another looks up the same.
   *
   * @param publisher the store that publishes
   * @param reader the store that looks it up
   * @param descriptor what to publish
   * @return the descriptor
   */
  static SegmentDescriptor publishAndLookUp(
      MetadataStore publisher, MetadataStore reader, SegmentDescriptor descriptor) {
    Await.result(publisher.publish(descriptor), WAIT);
    assertEquals(descriptor, Await.result(reader.lookup(descriptor.getName()), WAIT));
    return descriptor;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (classEtcd != null) {
      etcd = classEtcd.get();
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (classEtcd == null) {
      etcd = EtcdServer.start();
    } else if (etcd == null) {
      throw new IllegalStateException(
          "an EtcdStores on the class's etcd must be registered on a static field");
    }
    vertx = Vertx.vertx();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      for (MetadataStore store : stores) {
        Await.result(store.close(), WAIT);
      }
      stores.clear();
      if (vertx != null) {
        Await.result(vertx.close(), WAIT);
        vertx = null;
      }
    } finally {
      if (classEtcd == null && etcd != null) {
        etcd.close();
        etcd = null;
      }
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (classEtcd != null && etcd != null) {
      etcd.close();
    }
  }
}
