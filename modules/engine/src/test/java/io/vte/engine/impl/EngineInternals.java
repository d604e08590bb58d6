package io.vte.engine.impl;

import io.vte.api.TransferEngine;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.handshake.ConnectionFaults;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.MetadataStore;
import io.vte.verbs.VerbsProvider;
import java.util.List;

/**
 * The engine's tests' window on its parts, which the public class does not show: each method reads
 * one part of a running engine ({@link TransferEngineImpl#parts()}).
 */
public final class EngineInternals {

  private EngineInternals() {}

  private static EngineParts parts(TransferEngine engine) {
    return ((TransferEngineImpl) engine).parts();
  }

  /**
   * @return the engine-layer counters
   */
  public static EngineCounters counters(TransferEngine engine) {
    return parts(engine).counters();
  }

  /**
   * @return the engine's metadata store, started
   */
  public static MetadataStore metadataStore(TransferEngine engine) {
    return parts(engine).metadata();
  }

  /**
   * @return true while the metadata store serves cached descriptors (its backend is unreachable)
   */
  public static boolean metadataDegraded(TransferEngine engine) {
    return parts(engine).metadata().isDegraded();
  }

  /**
   * @return bytes of slices routed to a rail and not yet ended
   */
  public static long railBacklogBytes(TransferEngine engine) {
    return parts(engine).rails().outstandingBytes();
  }

  /**
   * @return the verbs provider (soft verbs: its fault injector)
   */
  public static VerbsProvider provider(TransferEngine engine) {
    return parts(engine).fabric().provider();
  }

  /**
   * @return the descriptor as the engine publishes it now
   */
  public static SegmentDescriptor descriptorForStore(TransferEngine engine) {
    return parts(engine).descriptor().build();
  }

  /**
   * @return the same-host rail
   */
  public static SharedMemoryRail sharedMemoryRail(TransferEngine engine) {
    return parts(engine).sharedMemory();
  }

  /**
   * @return the local contexts, one per device
   */
  public static List<LocalContext> contexts(TransferEngine engine) {
    return parts(engine).fabric().contexts();
  }

  /**
   * @return submit records made so far
   */
  static int submitRecordsMade(TransferEngine engine) {
    return parts(engine).submitter().submitRecordsMade();
  }

  /**
   * @return the faults the engine's handshake server injects into its own connections
   */
  static ConnectionFaults controlPlaneFaults(TransferEngine engine) {
    return parts(engine).fabric().server().faults();
  }

  /**
   * @return incoming notifications dropped as duplicates
   */
  static long notificationDuplicatesDropped(TransferEngine engine) {
    return parts(engine).notifications().duplicatesDropped();
  }

  /**
   * @return notifications sent again after an unanswered attempt
   */
  static long notificationsResent(TransferEngine engine) {
    return parts(engine).notificationSender().resent();
  }
}
