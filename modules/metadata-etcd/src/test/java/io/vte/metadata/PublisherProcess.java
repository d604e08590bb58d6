package io.vte.metadata;

import io.vertx.core.Vertx;
import io.vte.api.MetadataOptions;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.etcd.DescriptorCodec;
import java.time.Duration;

/**
 * A node in a child JVM for lease tests: starts an etcd store, publishes one descriptor, prints
 * {@code PUBLISHED} and then lives until killed (or until its standard input closes).
 */
public final class PublisherProcess {

  private PublisherProcess() {}

  /**
   * @param args etcd URI, cluster prefix, segment name, server name, lease TTL in seconds
   * @throws Exception on any failure (the parent sees the exit code and output)
   */
  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx();
    // A generous deadline: a JVM starting on a loaded 2-core machine is slow to reach etcd.
    MetadataOptions options =
        new MetadataOptions()
            .setClusterPrefix(args[1])
            .setLeaseTtl(Duration.ofSeconds(Long.parseLong(args[4])))
            .setCallDeadline(Duration.ofSeconds(10));
    MetadataStore store = MetadataStores.create(vertx, args[0], options);
    // Built (and its JSON codec's classes initialized) here, not on the store's event loop, where
    // seconds of class
    // initialization on a loaded machine delayed the lease's keep-alive.
    SegmentDescriptor descriptor = Descriptors.sample(args[2], args[3], 1, 1);
    DescriptorCodec.encode(descriptor);
    try {
      // Like an engine's first publish: retried within the start deadline, since a JVM starved for
      // longer than
      // the lease TTL between the grant and the put finds its lease expired ("requested lease not
      // found").
      store
          .start()
          .compose(
              v ->
                  StartDeadline.startingNow(vertx, options.getStartDeadline())
                      .retry("first publish", left -> store.publish(descriptor)))
          .toCompletionStage()
          .toCompletableFuture()
          .get();
    } catch (Throwable e) {
      // Exit, or Vert.x's threads keep this JVM alive and the parent waits for a line that never
      // comes.
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("PUBLISHED");
    System.out.flush();
    while (System.in.read() >= 0) {
      // keep living: the parent kills us
    }
    System.exit(0);
  }
}
