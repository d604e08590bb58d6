package io.vte.metadata.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.vertx.core.Future;
import io.vte.api.MetadataOptions;
import io.vte.handshake.proto.SegmentDescriptor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The entries an {@link EtcdMetadataStore} keeps in etcd for its node, under the node's lease: each
 * published segment's descriptor ({@code <prefix>/segments/<name>}) and the node's address ({@code
 * <prefix>/nodes/<serverName>}). Grants the lease, refreshes it, grants a new one when etcd forgot
 * it (once, however many callers find it gone), and revokes it at close. Runs on the store's
 * context.
 */
final class LeasedEntries {

  private static final System.Logger LOG = System.getLogger(EtcdMetadataStore.class.getName());

  private final EtcdCalls calls;
  private final MetadataOptions options;
  private final String segmentsPrefix;
  private final Supplier<Client> client;
  private long leaseId;

  /** A new lease being granted after etcd forgot {@link #leaseId}; shared by all who need it. */
  private Future<Long> renewing;

  /**
   * @param calls the store's etcd calls
   * @param options the store's options (lease TTL, call deadline, cluster prefix)
   * @param segmentsPrefix the segments prefix ({@code <cluster prefix>/segments/})
   * @param client the store's jetcd client of the moment
   */
  LeasedEntries(
      EtcdCalls calls, MetadataOptions options, String segmentsPrefix, Supplier<Client> client) {
    this.calls = calls;
    this.options = options;
    this.segmentsPrefix = segmentsPrefix;
    this.client = client;
  }

  /**
   * @return the lease, 0 before the first was granted
   */
  long id() {
    return leaseId;
  }

  /**
   * Grants a lease of the configured TTL.
   *
   * @param deadline the call's deadline
   * @return the revision of the grant
   */
  Future<Long> grant(Duration deadline) {
    long ttlSeconds = options.getLeaseTtl().getSeconds();
    return calls
        .call("grant lease", client.get().getLeaseClient().grant(ttlSeconds), deadline)
        .map(
            grant -> {
              leaseId = grant.getID();
              return grant.getHeader().getRevision();
            });
  }

  /**
   * Refreshes the lease once.
   *
   * @return true when it is alive, false when etcd no longer knows it (expired or revoked)
   */
  Future<Boolean> keepAliveOnce() {
    long id = leaseId;
    return calls
        .call(
            "keep-alive lease " + Long.toHexString(id),
            client.get().getLeaseClient().keepAliveOnce(id))
        .map(response -> response.getTTL() > 0)
        .recover(
            failure ->
                notFound(failure) ? Future.succeededFuture(false) : Future.failedFuture(failure));
  }

  /**
   * Grants a new lease in place of the current one, which etcd no longer knows: once, however many
   * puts and probes find it gone at the same time (a second lease would leave the keys put under it
   * to expire, unrefreshed).
   *
   * @return completes once the lease is one etcd knows
   */
  Future<Long> renew() {
    return renew(leaseId);
  }

  /**
   * Puts the descriptor and the node's address under the node's lease; when etcd forgot the lease
   * since it was granted (a node stalled longer than the TTL, before its first put or between
   * keep-alives), under a new one.
   *
   * @param d the descriptor
   * @return completes once etcd holds it
   */
  Future<Void> put(SegmentDescriptor d) {
    long lease = leaseId;
    return put(d, lease)
        .recover(
            failure ->
                notFound(failure)
                    ? renew(lease).compose(v -> put(d, leaseId))
                    : Future.failedFuture(failure));
  }

  /**
   * @param name a segment's name
   * @return completes once etcd deleted its descriptor
   */
  Future<Void> delete(String name) {
    String key = segmentsPrefix + name;
    return calls
        .call("delete " + key, client.get().getKVClient().delete(bytes(key), DeleteOption.DEFAULT))
        .mapEmpty();
  }

  /**
   * Revokes the lease, so the node's entries vanish at once; best effort within the call deadline.
   *
   * @return completes when etcd answered or the call failed
   */
  Future<Void> revoke() {
    if (leaseId == 0) {
      return Future.succeededFuture();
    }
    return calls
        .call("revoke lease " + leaseId, client.get().getLeaseClient().revoke(leaseId))
        .<Void>mapEmpty()
        .recover(e -> Future.succeededFuture());
  }

  /**
   * @param lost the lease found gone
   * @return completes once {@link #leaseId} is a lease etcd knows (at once when it already changed)
   */
  private Future<Long> renew(long lost) {
    if (leaseId != lost) {
      return Future.succeededFuture(leaseId);
    }
    if (renewing == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "etcd lease {0} expired or revoked; granting a new one",
          Long.toHexString(lost));
      Future<Long> grant = grant(options.getCallDeadline());
      renewing = grant;
      grant.onComplete(ar -> renewing = null);
    }
    return renewing;
  }

  private Future<Void> put(SegmentDescriptor d, long lease) {
    String key = segmentsPrefix + d.getName();
    PutOption underLease = PutOption.builder().withLeaseId(lease).build();
    String nodeKey = options.getClusterPrefix() + "/nodes/" + d.getServerName();
    return calls
        .call(
            "put " + key,
            client
                .get()
                .getKVClient()
                .txn()
                .Then(
                    Op.put(bytes(key), ByteSequence.from(DescriptorCodec.encode(d)), underLease),
                    Op.put(bytes(nodeKey), bytes(d.getServerName()), underLease))
                .commit())
        .mapEmpty();
  }

  /**
   * @param failure a failed call
   * @return true when etcd answered that the lease does not exist (expired or revoked)
   */
  private static boolean notFound(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof EtcdException e
          && e.getErrorCode() == io.etcd.jetcd.common.exception.ErrorCode.NOT_FOUND) {
        return true;
      }
      if (t instanceof io.grpc.StatusRuntimeException e
          && e.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
