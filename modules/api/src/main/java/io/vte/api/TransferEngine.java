package io.vte.api;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.spi.TransferEngineFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Moves bytes between registered memory of this process and segments of peers, one-sided, batched
 * and over every healthy rail. Every method may be called from any thread or verticle and never
 * blocks.
 *
 * <p>Obtained from {@link #create}: {@code TransferEngine.create(vertx, new
 * EngineOptions()).onSuccess(engine -> engine.openSegment("node-b"))}; then {@link #register} local
 * memory, {@link #submit(java.util.List, TransferOptions)} requests and {@link #close()}.
 */
public interface TransferEngine {

  /**
   * Creates and starts an engine: opens the local devices, starts their owners, the handshake
   * service and the metadata backend.
   *
   * <p>The engine lives on {@code vertx} and is closed with it: close the engine first ({@link
   * #close()}, then {@code vertx.close()}) to see how its close went; when {@code vertx.close()}
   * comes first, a close hook closes the engine before Vert.x stops its event loops and verticles,
   * and the engine's {@link #close()} afterwards is a no-op that succeeds. Either order leaves no
   * thread, socket or registration behind.
   *
   * @param vertx the Vert.x instance to run on
   * @param options the options (validated first)
   * @return the started engine; fails with INVALID_CONFIGURATION naming a bad field (among them
   *     {@code devices} naming a host that does not resolve or a device twice), or
   *     DEVICE_UNAVAILABLE (a device or provider that cannot be opened)
   */
  static Future<TransferEngine> create(Vertx vertx, EngineOptions options) {
    try {
      options.validate();
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    for (TransferEngineFactory factory : ServiceLoader.load(TransferEngineFactory.class)) {
      return factory.create(vertx, options);
    }
    return Future.failedFuture(
        new VteException(
            ErrorCode.INTERNAL,
            "no "
                + TransferEngineFactory.class.getName()
                + " on the class path: add the vte-engine module"));
  }

  /**
   * @return this node's server name, {@code host:port} of its handshake service (its p2p segment
   *     name)
   */
  String serverName();

  /**
   * Registers a direct buffer (from index 0 to its capacity) on every local device. The returned
   * future completes once this node's descriptor listing the buffer is in the metadata store (etcd:
   * put), so a peer told about the buffer then finds it; when the backend is away the registration
   * completes anyway and the store publishes the descriptor when the backend returns.
   *
   * @param buffer a direct buffer
   * @param location a location tag, e.g. {@code cpu:0}: 1 to 256 characters (peers refuse longer
   *     ones)
   * @return the registration; fails with INVALID_ARGUMENT for a heap buffer or a null, empty or
   *     over-long location, OVERLAPPING_REGISTRATION
   */
  Future<RegisteredBuffer> register(ByteBuffer buffer, String location);

  /**
   * Registers native memory the caller owns on every local device; completes after the publish, as
   * {@link #register(ByteBuffer, String)}.
   *
   * @param address start address, non-zero
   * @param length bytes, positive
   * @param location a location tag, 1 to 256 characters (peers refuse longer ones)
   * @return the registration; fails with INVALID_ARGUMENT (bad range, null, empty or over-long
   *     location) or OVERLAPPING_REGISTRATION
   */
  Future<RegisteredBuffer> register(long address, long length, String location);

  /**
   * Allocates memory that same-host peers can map, and registers it on every device. The memory is
   * a shared-memory file this engine creates (mode 0600, under {@code /dev/shm}), zero-filled; a
   * peer on the same host running as the same user copies into and out of it directly (the
   * same-host rail, one copy and no socket), every other peer over the network rails as usual.
   * {@link #unregister} (or close) revokes every peer's access, waiting for a copy in progress, and
   * removes the file; the memory stays readable here while the buffer is reachable. Reach the
   * memory through {@link RegisteredBuffer#byteBuffer()}.
   *
   * @param size bytes, 1 to 2^31 - 4097
   * @param location location tag, as for {@link #register(ByteBuffer, String)}
   * @return the registered buffer; INVALID_ARGUMENT naming a bad size or location,
   *     DEVICE_UNAVAILABLE when the file cannot be made, ENGINE_CLOSED after close
   */
  Future<RegisteredBuffer> allocate(long size, String location);

  /**
   * Deregisters a buffer on every device; afterwards nothing is written to that memory. Completes
   * after the descriptor without the buffer is published, as {@link #register(ByteBuffer, String)}.
   *
   * @param buffer a buffer of this engine
   * @return completes when deregistered; fails with INVALID_ARGUMENT for null, NOT_REGISTERED for a
   *     buffer this engine does not hold (never registered here, or unregistered already)
   */
  Future<Void> unregister(RegisteredBuffer buffer);

  /**
   * Opens a peer segment (p2p: its server name {@code host:port}).
   *
   * @param name segment name
   * @return the handle (cached); fails with SEGMENT_NOT_FOUND or PEER_UNREACHABLE
   */
  Future<SegmentHandle> openSegment(String name);

  /**
   * Submits a batch. Invalid input fails {@link TransferBatch#result()} up front with a typed error
   * and sends nothing. Submitted on a Vert.x context, the result completes on that context; from a
   * thread outside Vert.x, a batch that completes on its own completes its result on the engine
   * thread that saw its last slice done (an owner's event loop), without another hop, and one that
   * fails, is cancelled or times out on one event loop the engine keeps for such callers: callbacks
   * registered there must not block, as on any event loop.
   *
   * @param requests the requests
   * @param options deadline
   * @return the batch
   */
  TransferBatch submit(List<TransferRequest> requests, TransferOptions options);

  /**
   * Validates a batch once and resolves its remote ranges, for posting it many times ({@link
   * PreparedTransfer#post()}) without validating, looking up or allocating its records again.
   *
   * @param requests the requests (kept: the list is copied, the requests are immutable)
   * @param options deadline of every post, counted from the post
   * @return the prepared batch; fails with the typed error {@link #submit} would give the batch
   *     (INVALID_ARGUMENT, NOT_REGISTERED, OUT_OF_RANGE, ENGINE_CLOSED ...), and nothing is sent
   */
  Future<PreparedTransfer> prepare(List<TransferRequest> requests, TransferOptions options);

  /**
   * Explicit batch-id API (Mooncake style): allocates a batch able to hold {@code capacity} tasks.
   *
   * @param capacity maximum number of tasks, positive
   * @return the batch id
   */
  long allocateBatch(int capacity);

  /**
   * Submits tasks to an allocated batch; their indexes continue after the tasks already submitted.
   *
   * @param batchId an id from {@link #allocateBatch}
   * @param requests the requests
   * @return completes when accepted (validated and routed); fails with INVALID_ARGUMENT for an
   *     unknown id, BATCH_BUSY past capacity, or the validation error
   */
  Future<Void> submit(long batchId, List<TransferRequest> requests);

  /**
   * @param batchId a batch id
   * @param taskIndex index of a submitted or allocated task
   * @return its status
   * @throws VteException INVALID_ARGUMENT for an unknown id or index
   */
  TaskStatus status(long batchId, int taskIndex);

  /**
   * @param batchId a batch id
   * @return WAITING (nothing submitted), PENDING (something moving), FAILED/TIMED_OUT/CANCELED (any
   *     task ended so and none is pending), else COMPLETED
   * @throws VteException INVALID_ARGUMENT for an unknown id
   */
  TaskState batchStatus(long batchId);

  /**
   * Frees a batch id.
   *
   * @param batchId a batch id
   * @throws VteException BATCH_BUSY while tasks are unfinished, INVALID_ARGUMENT for an unknown id
   */
  void freeBatch(long batchId);

  /**
   * Sends a small message to a peer; messages to one peer arrive in the order sent.
   *
   * @param segmentOrServer the peer's segment or server name
   * @param topic application-defined name
   * @param payload at most 64 KiB
   * @return completes when the peer accepted it
   */
  Future<Void> notify(String segmentOrServer, String topic, Buffer payload);

  /**
   * Sets the handler of incoming notifications (called on a Vert.x context, in order per sender).
   *
   * @param handler the handler, null to drop notifications
   * @return this
   */
  TransferEngine notificationHandler(Handler<Notification> handler);

  /**
   * What this engine shows of itself: segment name, metadata state, devices, rails, counters and,
   * on soft verbs, the fault injector of its devices.
   *
   * @return the engine's diagnostics, readable from any thread, also after close (the counters then
   *     keep their last values)
   */
  EngineDiagnostics diagnostics();

  /**
   * Closes the engine: unfinished requests fail with ENGINE_CLOSED, every Future completes, and no
   * thread, socket, QP, MR or timer remains. Call it before closing the engine's Vert.x instance;
   * closing Vert.x first closes the engine too (see {@link #create}), and a later call returns the
   * same completed result. Calling it again returns the first call's result.
   *
   * @return completes when everything is released
   */
  Future<Void> close();
}
