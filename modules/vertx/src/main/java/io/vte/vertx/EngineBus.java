package io.vte.vertx;

import io.vertx.core.eventbus.ReplyException;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * The event-bus contract of a {@link TransferEngineVerticle}. Every address starts with the
 * verticle's prefix ({@value #DEFAULT_ADDRESS} unless configured); requests and replies are {@code
 * JsonObject}s.
 *
 * <table>
 *   <caption>Addresses</caption>
 *   <tr><th>address</th><th>request</th><th>reply</th></tr>
 *   <tr><td>{@code P.register}</td><td>{@code {name, length, location?}}: allocate {@code length} off-heap
 *       bytes owned by the verticle and register them under {@code name}</td>
 *       <td>{@code {name, address, length, location}}</td></tr>
 *   <tr><td>{@code P.unregister}</td><td>{@code {name}}</td><td>{@code {name}}; the memory is freed</td></tr>
 *   <tr><td>{@code P.write}</td><td>{@code {name, offset, data}} ({@code data} binary)</td>
 *       <td>{@code {name, offset, length}}</td></tr>
 *   <tr><td>{@code P.read}</td><td>{@code {name, offset, length}}</td><td>{@code {name, offset, data}}</td></tr>
 *   <tr><td>{@code P.openSegment}</td><td>{@code {segment}}</td><td>{@code {name, serverName, version,
 *       devices:[{name, active}], buffers:[{location, address, length}]}}</td></tr>
 *   <tr><td>{@code P.submit}</td><td>{@code {requests:[{opcode: READ|WRITE, local, localOffset, segment,
 *       remoteAddress, length}], deadlineMs?}} ({@code local} names a registered buffer)</td>
 *       <td>{@code {allCompleted, bytes, requests:[{status, bytes, code?, message?}]}}, one entry per
 *       request in order</td></tr>
 *   <tr><td>{@code P.notify}</td><td>{@code {target, topic, payload}} ({@code payload} binary, at most
 *       64 KiB)</td><td>{@code {}}</td></tr>
 *   <tr><td>{@code P.stats}</td><td>{@code {}}</td><td>{@code {serverName, bytes, slices, retries, batches,
 *       buffers, batchesFailed}}</td></tr>
 *   <tr><td>{@code P.health}</td><td>{@code {}}</td><td>{@link EngineHealth#check} JSON</td></tr>
 *   <tr><td>{@code P.notifications}</td><td colspan="2">published by the verticle for every incoming
 *       notification: {@code {from, topic, payload, sequence}}</td></tr>
 * </table>
 *
 * <p>Failures are {@link ReplyException}s whose failure code is {@link #failureCode(ErrorCode)} and
 * whose message names the bad value; {@link #toException(Throwable)} turns them back into {@link
 * VteException}s.
 */
public final class EngineBus {

  /** Default address prefix. */
  public static final String DEFAULT_ADDRESS = "vte.engine";

  /** Suffix: register memory by name. */
  public static final String REGISTER = ".register";

  /** Suffix: unregister and free memory by name. */
  public static final String UNREGISTER = ".unregister";

  /** Suffix: copy bytes into a named buffer. */
  public static final String WRITE = ".write";

  /** Suffix: copy bytes out of a named buffer. */
  public static final String READ = ".read";

  /** Suffix: open a peer segment. */
  public static final String OPEN_SEGMENT = ".openSegment";

  /** Suffix: submit a batch. */
  public static final String SUBMIT = ".submit";

  /** Suffix: send a notification to a peer. */
  public static final String NOTIFY = ".notify";

  /** Suffix: engine counters. */
  public static final String STATS = ".stats";

  /** Suffix: health check. */
  public static final String HEALTH = ".health";

  /** Suffix: where incoming notifications are published. */
  public static final String NOTIFICATIONS = ".notifications";

  /** Failure codes are this base plus the {@link ErrorCode} ordinal. */
  public static final int FAILURE_CODE_BASE = 1000;

  private EngineBus() {}

  /**
   * @param code a typed error code
   * @return the {@link ReplyException} failure code carrying it
   */
  public static int failureCode(ErrorCode code) {
    return FAILURE_CODE_BASE + code.ordinal();
  }

  /**
   * Turns a reply failure back into a typed exception: a VTE failure code keeps its {@link
   * ErrorCode}, a timeout or missing handler becomes ENGINE_CLOSED, anything else INTERNAL.
   *
   * @param failure the failure of a request future
   * @return the typed exception
   */
  public static VteException toException(Throwable failure) {
    if (failure instanceof VteException e) {
      return e;
    }
    if (failure instanceof ReplyException r) {
      int ordinal = r.failureCode() - FAILURE_CODE_BASE;
      if (ordinal >= 0 && ordinal < ErrorCode.values().length) {
        ErrorCode code = ErrorCode.values()[ordinal];
        String m = String.valueOf(r.getMessage());
        return new VteException(
            code, m.startsWith(code + ": ") ? m.substring(code.name().length() + 2) : m);
      }
      switch (r.failureType()) {
        case NO_HANDLERS:
          return new VteException(
              ErrorCode.ENGINE_CLOSED,
              "no transfer engine verticle at this address: " + r.getMessage());
        case TIMEOUT:
          return new VteException(
              ErrorCode.TIMED_OUT, "no reply from the transfer engine verticle: " + r.getMessage());
        default:
          break;
      }
    }
    return new VteException(ErrorCode.INTERNAL, String.valueOf(failure.getMessage()), failure);
  }
}
