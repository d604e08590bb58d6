package io.vte.metadata.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.impl.DescriptorCache;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Reads of segment descriptors from etcd for an {@link EtcdMetadataStore}: each read fills the
 * lookup cache, a burst of lookups of one segment costs etcd one read, and a failed read tells the
 * store (which turns degraded). Runs on the store's context.
 */
final class SegmentReads {

  private final EtcdCalls calls;
  private final String segmentsPrefix;
  private final String endpoints;
  private final DescriptorCache cache;
  private final Supplier<Client> client;
  private final Consumer<VteException> onFailure;
  private final Map<String, Future<SegmentDescriptor>> inFlight = new HashMap<>();

  /**
   * @param calls the store's etcd calls
   * @param segmentsPrefix the segments prefix ({@code <cluster prefix>/segments/})
   * @param endpoints the store's URI, for messages
   * @param cache the store's lookup cache
   * @param client the store's jetcd client of the moment
   * @param onFailure told of every read etcd did not answer
   */
  SegmentReads(
      EtcdCalls calls,
      String segmentsPrefix,
      String endpoints,
      DescriptorCache cache,
      Supplier<Client> client,
      Consumer<VteException> onFailure) {
    this.calls = calls;
    this.segmentsPrefix = segmentsPrefix;
    this.endpoints = endpoints;
    this.cache = cache;
    this.client = client;
    this.onFailure = onFailure;
  }

  /**
   * Answers from the cache, else joins a read of {@code name} already in flight, else reads.
   *
   * @param name a segment's name
   * @return its descriptor
   */
  Future<SegmentDescriptor> once(String name) {
    SegmentDescriptor cached = cache.get(name);
    if (cached != null) {
      return Future.succeededFuture(cached);
    }
    Future<SegmentDescriptor> pending = inFlight.get(name);
    if (pending == null) {
      pending = read(name);
      inFlight.put(name, pending);
      pending.onComplete(ar -> inFlight.remove(name));
    }
    return pending;
  }

  /**
   * Reads the key from etcd even when the cache holds the segment.
   *
   * @param name a segment's name
   * @return its descriptor; {@code SEGMENT_NOT_FOUND} when etcd has none
   */
  Future<SegmentDescriptor> read(String name) {
    String key = segmentsPrefix + name;
    return calls
        .call(
            "get " + key,
            client.get().getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8)))
        .compose(
            response -> {
              if (response.getKvs().isEmpty()) {
                return Future.failedFuture(
                    new VteException(
                        ErrorCode.SEGMENT_NOT_FOUND,
                        "segment '" + name + "' not found at " + key + " in " + endpoints));
              }
              SegmentDescriptor descriptor =
                  DescriptorCodec.decode(key, name, response.getKvs().get(0).getValue().getBytes());
              cache.put(name, descriptor, response.getHeader().getRevision());
              return Future.succeededFuture(descriptor);
            },
            failure -> {
              VteException e = calls.map("get " + key, failure);
              onFailure.accept(e);
              return Future.failedFuture(e);
            });
  }
}
