package io.vte.engine.impl;

import io.vertx.core.Closeable;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.EngineDiagnostics;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.PreparedTransfer;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.HandshakeExposure;
import io.vte.engine.VertxInternals;
import io.vte.engine.impl.notify.NotificationSender;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.peer.PeerTransports;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.shm.SharedMemoryFile;
import io.vte.engine.impl.submit.BatchIdTable;
import io.vte.engine.impl.submit.TransferSubmitter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The engine: wires the verbs provider, the owner layer (one {@link LocalContext} per device), the
 * handshake service and client, the metadata store and the data path ({@link TransferSubmitter})
 * behind the public {@link TransferEngine} API. {@link #start} has an {@link EngineOpener} build
 * them, in order, into one {@link EngineParts} (releasing what it opened when a step fails) and
 * makes the engine over them; {@link #close} releases everything through {@link EngineParts#close}.
 */
public final class TransferEngineImpl implements TransferEngine {

  /** Where {@link #allocate} creates its files. */
  private static final Path SHARED_MEMORY_DIRECTORY =
      Path.of(System.getProperty("vte.shm.dir", "/dev/shm"));

  private final Vertx vertx;
  private final EngineHandshakeHandler handshakeHandler;
  private final EngineParts parts;
  private final BatchIdTable batchIds = new BatchIdTable();

  private volatile boolean closed;
  private Future<Void> closing;

  /**
   * Closes the engine when its Vert.x instance closes: Vert.x runs its close hooks first, while its
   * event loops and worker pools still run, and undeploys verticles after them, so the engine
   * releases its owners, servers, NIC threads and memory in its own order.
   */
  private final Closeable closeHook = completion -> close().onComplete(completion);

  private TransferEngineImpl(
      Vertx vertx, EngineHandshakeHandler handshakeHandler, EngineParts parts) {
    this.vertx = vertx;
    this.handshakeHandler = handshakeHandler;
    this.parts = parts;
  }

  /**
   * Creates and starts an engine.
   *
   * @param vertx the Vert.x instance
   * @param options validated options
   * @return the running engine, or a typed failure after everything opened so far was closed (by
   *     {@link EngineOpener#open})
   */
  public static Future<TransferEngine> start(Vertx vertx, EngineOptions options) {
    Future<EngineOptions> resolved;
    if ("soft".equals(options.getTransport())
        && options.getDevices() != null
        && options.getDevices().isEmpty()) {
      // Listing the host's interfaces reads kernel tables: on a worker, never on the caller's event
      // loop.
      resolved = vertx.executeBlocking(options::withHostDefaults, false);
    } else {
      try {
        resolved = Future.succeededFuture(options.withHostDefaults());
      } catch (VteException e) {
        return Future.failedFuture(e);
      }
    }
    return resolved.compose(
        o -> {
          EngineHandshakeHandler handler = new EngineHandshakeHandler();
          return new EngineOpener(vertx, o, handler)
              .open()
              .map(
                  parts -> {
                    TransferEngineImpl engine = new TransferEngineImpl(vertx, handler, parts);
                    VertxInternals.addCloseHook(vertx, engine.closeHook);
                    HandshakeExposure.warnIfExposed(engine.serverName(), o.getAuth() != null);
                    return engine;
                  });
        });
  }

  /**
   * @return completes with {@code value} once a descriptor with the change just made is in the
   *     metadata store, so a peer reading it finds the change; also when that put failed (the
   *     backend is away: the store keeps the descriptor and publishes it when the backend returns,
   *     and the change itself stands)
   */
  private <T> Future<T> whenPublished(T value) {
    return parts.publisher().published().transform(ar -> Future.succeededFuture(value));
  }

  @Override
  public String serverName() {
    return parts.fabric().server().serverName();
  }

  /**
   * @return the engine's parts, for its own tests (through their test hook)
   */
  EngineParts parts() {
    return parts;
  }

  @Override
  public EngineDiagnostics diagnostics() {
    return parts.diagnostics();
  }

  @Override
  public Future<RegisteredBuffer> register(ByteBuffer buffer, String location) {
    if (buffer == null || !buffer.isDirect()) {
      return Future.failedFuture(
          new VteException(
              ErrorCode.INVALID_ARGUMENT,
              "memory must be off-heap: got "
                  + (buffer == null
                      ? "null"
                      : "a heap ByteBuffer of " + buffer.capacity() + " bytes")));
    }
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(() -> memory.register(buffer, location), false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<RegisteredBuffer> register(long address, long length, String location) {
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(() -> memory.register(address, length, location), false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<RegisteredBuffer> allocate(long size, String location) {
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(
            () -> {
              MemoryRegistry.checkLocation(location);
              SharedMemoryFile.removeOrphans(SHARED_MEMORY_DIRECTORY, EngineWiring.HOST.uid());
              SharedMemoryFile file =
                  SharedMemoryFile.create(SHARED_MEMORY_DIRECTORY, size, EngineWiring.HOST);
              try {
                return memory.register(file, location);
              } catch (RuntimeException e) {
                file.revoke();
                throw e;
              }
            },
            false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<Void> unregister(RegisteredBuffer buffer) {
    if (closed) {
      return closedFailure();
    }
    if (buffer == null) {
      return Future.failedFuture(
          new VteException(ErrorCode.INVALID_ARGUMENT, "the buffer to unregister is null"));
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .<Void>executeBlocking(
            () -> {
              memory.unregister(buffer);
              return null;
            },
            false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<SegmentHandle> openSegment(String name) {
    if (closed) {
      return closedFailure();
    }
    if (name == null || name.isBlank()) {
      return Future.failedFuture(
          new VteException(ErrorCode.INVALID_ARGUMENT, "segment name is blank: '" + name + "'"));
    }
    return parts.segments().open(name).map(s -> s);
  }

  @Override
  public TransferBatch submit(List<TransferRequest> requests, TransferOptions transferOptions) {
    return parts.submitter().submit(requests, transferOptions);
  }

  @Override
  public Future<PreparedTransfer> prepare(
      List<TransferRequest> requests, TransferOptions transferOptions) {
    return parts.submitter().prepare(requests, transferOptions);
  }

  @Override
  public long allocateBatch(int capacity) {
    if (closed) {
      throw new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed");
    }
    return batchIds.allocate(capacity);
  }

  @Override
  public Future<Void> submit(long batchId, List<TransferRequest> requests) {
    TransferSubmitter submitter = parts.submitter();
    return batchIds.submit(
        batchId, requests, r -> submitter.submitTracked(r, new TransferOptions()));
  }

  @Override
  public TaskStatus status(long batchId, int taskIndex) {
    return batchIds.status(batchId, taskIndex);
  }

  @Override
  public TaskState batchStatus(long batchId) {
    return batchIds.batchStatus(batchId);
  }

  @Override
  public void freeBatch(long batchId) {
    batchIds.free(batchId);
  }

  @Override
  public Future<Void> notify(String segmentOrServer, String topic, Buffer payload) {
    if (closed) {
      return closedFailure();
    }
    try {
      NotificationSender.check(topic, payload);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    byte[] bytes = payload.getBytes();
    NotificationSender sender = parts.notificationSender();
    PeerTransports peers = parts.peers();
    return openSegment(segmentOrServer)
        .compose(
            seg ->
                peers.owns((PeerSegment) seg)
                    ? peers.notify((PeerSegment) seg, topic, payload)
                    : sender.send(seg.serverName(), topic, bytes));
  }

  @Override
  public TransferEngine notificationHandler(Handler<Notification> handler) {
    parts.notifications().handler(handler);
    return this;
  }

  @Override
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    closed = true;
    VertxInternals.removeCloseHook(vertx, closeHook);
    handshakeHandler.closing();
    closing = parts.close(vertx, diagnostics().segmentName());
    return closing;
  }

  private static <T> Future<T> closedFailure() {
    return Future.failedFuture(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
  }
}
