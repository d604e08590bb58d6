package io.vte.vertx;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.api.VteException;
import io.vte.verbs.DirectMemory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Off-heap buffers the verticle allocates and registers on behalf of event-bus clients, by name.
 * Used on the verticle's context only.
 */
final class NamedBuffers {

  /** Largest single buffer: registration is per device and memory is real. */
  static final long MAX_LENGTH = 1L << 32;

  /** Largest chunk copied through one read/write message. */
  static final int MAX_COPY = 16 * 1024 * 1024;

  private final Vertx vertx;
  private final TransferEngine engine;
  private final Map<String, RegisteredBuffer> buffers = new HashMap<>();
  private final Set<String> pending = new HashSet<>();

  NamedBuffers(Vertx vertx, TransferEngine engine) {
    this.vertx = vertx;
    this.engine = engine;
  }

  Future<RegisteredBuffer> register(String name, long length, String location) {
    if (name.isBlank()) {
      return failed(ErrorCode.INVALID_ARGUMENT, "buffer name must not be blank");
    }
    if (buffers.containsKey(name) || pending.contains(name)) {
      return failed(
          ErrorCode.INVALID_ARGUMENT, "a buffer named '" + name + "' is already registered");
    }
    if (length <= 0 || length > MAX_LENGTH) {
      return failed(
          ErrorCode.INVALID_ARGUMENT,
          "buffer '" + name + "' length " + length + " is outside 1.." + MAX_LENGTH);
    }
    pending.add(name);
    // zeroing gigabytes takes long: allocate and clear on a worker, register back on this context
    return vertx
        .executeBlocking(
            () -> {
              long address;
              try {
                address = DirectMemory.allocate(length);
              } catch (OutOfMemoryError e) {
                throw new VteException(
                    ErrorCode.INVALID_ARGUMENT,
                    "cannot allocate " + length + " bytes for buffer '" + name + "'");
              }
              DirectMemory.fill(address, length, (byte) 0);
              return address;
            })
        .onFailure(e -> pending.remove(name))
        .compose(address -> register(name, address, length, location));
  }

  private Future<RegisteredBuffer> register(
      String name, long address, long length, String location) {
    return engine
        .register(address, length, location)
        .andThen(
            ar -> {
              pending.remove(name);
              if (ar.succeeded()) {
                buffers.put(name, ar.result());
              } else {
                DirectMemory.free(address);
              }
            });
  }

  RegisteredBuffer get(String name) {
    RegisteredBuffer b = buffers.get(name);
    if (b == null) {
      throw new VteException(ErrorCode.NOT_REGISTERED, "no buffer named '" + name + "'");
    }
    return b;
  }

  Future<Void> unregister(String name) {
    RegisteredBuffer b;
    try {
      b = get(name);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    buffers.remove(name);
    return engine.unregister(b).andThen(ar -> DirectMemory.free(b.address()));
  }

  void write(String name, long offset, Buffer data) {
    RegisteredBuffer b = get(name);
    checkRange(b, name, offset, data.length());
    DirectMemory.wrap(b.address() + offset, data.length()).put(data.getBytes());
  }

  Buffer read(String name, long offset, int length) {
    RegisteredBuffer b = get(name);
    checkRange(b, name, offset, length);
    byte[] out = new byte[length];
    DirectMemory.wrap(b.address() + offset, length).get(out);
    return Buffer.buffer(out);
  }

  private static void checkRange(RegisteredBuffer b, String name, long offset, long length) {
    if (length > MAX_COPY) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "copy length " + length + " exceeds " + MAX_COPY + " bytes per message");
    }
    if (offset < 0 || length < 0 || offset > b.length() - length) {
      throw new VteException(
          ErrorCode.OUT_OF_RANGE,
          "range ["
              + offset
              + ", +"
              + length
              + ") is outside buffer '"
              + name
              + "' of "
              + b.length()
              + " bytes");
    }
  }

  int size() {
    return buffers.size();
  }

  /** Frees every buffer; call after the engine closed (which deregistered them). */
  void freeAll() {
    for (RegisteredBuffer b : List.copyOf(buffers.values())) {
      DirectMemory.free(b.address());
    }
    buffers.clear();
  }

  private static <T> Future<T> failed(ErrorCode code, String message) {
    return Future.failedFuture(new VteException(code, message));
  }
}
