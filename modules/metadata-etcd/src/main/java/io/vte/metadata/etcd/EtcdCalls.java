package io.vte.metadata.etcd;

import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Runs jetcd calls the Vert.x way: the result arrives on the store's context, within a deadline,
 * and failures become typed {@link VteException}s naming the call and the endpoints; and runs the
 * store's own actions on its context, answering on the caller's ({@link #onContext}).
 */
final class EtcdCalls {

  private final Context context;
  private final Duration deadline;
  private final String endpoints;

  EtcdCalls(Context context, Duration deadline, String endpoints) {
    this.context = context;
    this.deadline = deadline;
    this.endpoints = endpoints;
  }

  /**
   * Completes on the store's context with the call's result, or fails with {@code
   * METADATA_UNAVAILABLE} when the deadline passes first (the call is then canceled).
   *
   * @param what the call, for messages (e.g. {@code "get /vte/default/segments/a"})
   * @param call the jetcd call, already started
   */
  <T> Future<T> call(String what, CompletableFuture<T> call) {
    return call(what, call, deadline);
  }

  /**
   * {@link #call(String, CompletableFuture)} with a deadline of its own.
   *
   * @param what the call, for messages
   * @param call the jetcd call, already started
   * @param deadline how long it may take, at least 1 ms
   */
  <T> Future<T> call(String what, CompletableFuture<T> call, Duration deadline) {
    long deadlineMs = Math.max(1, deadline.toMillis());
    Promise<T> promise = Promise.promise();
    long timer =
        context
            .owner()
            .setTimer(
                deadlineMs,
                id -> {
                  if (promise.tryFail(
                      new VteException(
                          ErrorCode.METADATA_UNAVAILABLE,
                          what + " timed out after " + deadlineMs + " ms against " + endpoints))) {
                    call.cancel(true);
                  }
                });
    call.whenComplete(
        (result, failure) ->
            context.runOnContext(
                v -> {
                  context.owner().cancelTimer(timer);
                  if (failure == null) {
                    promise.tryComplete(result);
                  } else {
                    promise.tryFail(map(what, failure));
                  }
                }));
    return promise.future();
  }

  /**
   * @return the endpoints, for messages
   */
  String endpoints() {
    return endpoints;
  }

  /**
   * @param what the failed call
   * @param failure what jetcd reported
   * @return a typed failure: PERMISSION_DENIED for authentication and authorization errors, else
   *     METADATA_UNAVAILABLE
   */
  VteException map(String what, Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof VteException vte) {
      return vte;
    }
    if (t instanceof CancellationException) {
      return new VteException(
          ErrorCode.METADATA_UNAVAILABLE, what + " canceled against " + endpoints, t);
    }
    String message = String.valueOf(t.getMessage());
    if (isAuthFailure(t, message)) {
      return new VteException(
          ErrorCode.PERMISSION_DENIED, what + " refused by " + endpoints + ": " + message, t);
    }
    return new VteException(
        ErrorCode.METADATA_UNAVAILABLE, what + " failed against " + endpoints + ": " + message, t);
  }

  private static boolean isAuthFailure(Throwable t, String message) {
    if (t instanceof EtcdException e) {
      var code = e.getErrorCode();
      if (code == io.etcd.jetcd.common.exception.ErrorCode.PERMISSION_DENIED
          || code == io.etcd.jetcd.common.exception.ErrorCode.UNAUTHENTICATED) {
        return true;
      }
    }
    Status.Code grpc = Status.fromThrowable(t).getCode();
    return grpc == Status.Code.PERMISSION_DENIED
        || grpc == Status.Code.UNAUTHENTICATED
        || message.contains("authentication failed")
        || message.contains("user name is empty")
        || message.contains("invalid auth token")
        || message.contains("permission denied");
  }

  /**
   * Runs {@code action} on the store's context and answers on the caller's context; an action that
   * throws fails the answer ({@code INTERNAL} unless it threw a {@link VteException}).
   *
   * @param action what the store does
   * @return the action's answer, on the caller's context
   */
  <T> Future<T> onContext(Supplier<Future<T>> action) {
    Context caller = Vertx.currentContext();
    Future<T> result;
    if (caller == context) {
      result = safely(action);
    } else {
      Promise<T> promise = Promise.promise();
      context.runOnContext(v -> safely(action).onComplete(promise));
      result = promise.future();
    }
    return caller == null || caller == context
        ? result
        : Future.fromCompletionStage(result.toCompletionStage(), caller);
  }

  private static <T> Future<T> safely(Supplier<Future<T>> action) {
    try {
      return action.get();
    } catch (VteException e) {
      return Future.failedFuture(e);
    } catch (RuntimeException e) {
      return Future.failedFuture(
          new VteException(ErrorCode.INTERNAL, "etcd metadata store: " + e, e));
    }
  }
}
