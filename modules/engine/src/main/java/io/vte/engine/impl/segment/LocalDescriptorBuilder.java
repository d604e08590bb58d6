package io.vte.engine.impl.segment;

import com.google.protobuf.ByteString;
import io.vte.engine.impl.shm.HostIdentity;
import io.vte.engine.impl.shm.SharedMemoryFile;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.SharedMemoryDesc;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Describes this node as a segment: its devices (GID, LID, MTU, port active) and its registered
 * buffers with their rkeys index-aligned with the devices. The version bumps on every change, and
 * starts at this incarnation's start time (microseconds), so that peers comparing versions take a
 * restart's descriptors for newer. Thread-safe.
 */
public final class LocalDescriptorBuilder {

  private final String segmentName;
  private final String serverName;
  private final String transport;
  private final List<String> deviceTransports;
  private final List<String> deviceNames;
  private final IntFunction<PortAttributes> ports;
  private final MemoryRegistry memory;

  /** This host and user, for the shared-memory buffers' descriptions; null: describe none. */
  private volatile HostIdentity host;

  /** False: the published descriptor leaves shared memory out (only GetSegment callers see it). */
  private volatile boolean publishSharedMemory = true;

  /**
   * Starts at the wall clock in microseconds, so a restarted node's descriptors are newer than its
   * old ones.
   */
  private final AtomicLong version = new AtomicLong(Math.max(1, System.currentTimeMillis() * 1000));

  /**
   * A builder publishing under the server name (the p2p convention).
   *
   * @param serverName this node's server name, also its segment name
   * @param transport {@code soft} or {@code ibverbs}
   * @param deviceNames local device names, by index
   * @param ports the current port attributes of a device, by index
   * @param memory the registered buffers
   */
  public LocalDescriptorBuilder(
      String serverName,
      String transport,
      List<String> deviceNames,
      IntFunction<PortAttributes> ports,
      MemoryRegistry memory) {
    this(
        serverName,
        serverName,
        transport,
        Collections.nCopies(deviceNames.size(), transport),
        deviceNames,
        ports,
        memory);
  }

  /**
   * @param segmentName the logical name the descriptor is published under
   * @param serverName this node's server name (the RPC address peers handshake with)
   * @param transport {@code soft} or {@code ibverbs}: the engine's transport
   * @param deviceTransports each device's provider, by index (an ibverbs engine's fallback devices
   *     are {@code soft})
   * @param deviceNames local device names, by index
   * @param ports the current port attributes of a device, by index
   * @param memory the registered buffers
   */
  public LocalDescriptorBuilder(
      String segmentName,
      String serverName,
      String transport,
      List<String> deviceTransports,
      List<String> deviceNames,
      IntFunction<PortAttributes> ports,
      MemoryRegistry memory) {
    this.segmentName = segmentName;
    this.serverName = serverName;
    this.transport = transport;
    this.deviceTransports = List.copyOf(deviceTransports);
    this.deviceNames = List.copyOf(deviceNames);
    this.ports = ports;
    this.memory = memory;
  }

  /**
   * @return the logical name the descriptor is published under
   */
  public String segmentName() {
    return segmentName;
  }

  /**
   * @return the server name peers handshake with
   */
  public String serverName() {
    return serverName;
  }

  /** Records a change (registration, port state): the next descriptor has a higher version. */
  public void changed() {
    version.incrementAndGet();
  }

  /**
   * @return the version of the newest change: a descriptor built from now on has at least this
   *     version and every change up to it
   */
  public long version() {
    return version.get();
  }

  /**
   * Describes the buffers the engine allocated in shared memory as such from now on.
   *
   * @param host this host and user
   * @param inPublished false to leave them out of the descriptor published to the metadata store
   *     (with auth on, only peers that called GetSegment authenticated learn them): it then names
   *     this host and user instead, so that such a peer knows to ask
   */
  public void describeSharedMemory(HostIdentity host, boolean inPublished) {
    this.publishSharedMemory = inPublished;
    this.host = host;
  }

  /**
   * @return the descriptor as of now, to publish to the metadata store
   */
  public SegmentDescriptor build() {
    return build(publishSharedMemory);
  }

  /**
   * @return the descriptor as of now, for a peer that called GetSegment (authenticated when auth is
   *     on): with shared memory described
   */
  public SegmentDescriptor buildForPeer() {
    return build(true);
  }

  private SegmentDescriptor build(boolean withSharedMemory) {
    SegmentDescriptor.Builder b =
        SegmentDescriptor.newBuilder()
            .setName(segmentName)
            .setServerName(serverName)
            .setTransport(transport)
            .setVersion(version.get());
    for (int i = 0; i < deviceNames.size(); i++) {
      DeviceDesc.Builder d =
          DeviceDesc.newBuilder().setName(deviceNames.get(i)).setTransport(deviceTransports.get(i));
      try {
        PortAttributes p = ports.apply(i);
        d.setGid(ByteString.copyFrom(p.gid().toBytes()))
            .setLid(p.lid())
            .setMtu(p.activeMtu())
            .setActive(p.state() == PortState.ACTIVE);
      } catch (RuntimeException e) {
        d.setActive(false);
      }
      b.addDevices(d);
    }
    HostIdentity h = host;
    boolean sharedMemoryLeftOut = false;
    for (LocalBuffer buf : memory.snapshot()) {
      BufferDesc.Builder d =
          BufferDesc.newBuilder()
              .setLocation(buf.location())
              .setAddress(buf.address())
              .setLength(buf.length())
              .setAccess(AccessFlags.ALL_REMOTE);
      for (int i = 0; i < buf.deviceCount(); i++) {
        d.addRkeys(buf.rkey(i));
      }
      SharedMemoryFile file = buf.sharedMemory();
      if (h != null && file != null && withSharedMemory) {
        d.setShm(
            SharedMemoryDesc.newBuilder()
                .setPath(file.path().toString())
                .setNonce(ByteString.copyFrom(file.nonce()))
                .setBootId(h.bootId())
                .setUid((int) h.uid())
                .setDataOffset(SharedMemoryFile.DATA_OFFSET));
      } else if (h != null && file != null) {
        sharedMemoryLeftOut = true;
      }
      b.addBuffers(d);
    }
    if (sharedMemoryLeftOut) {
      // names this host and user instead, so that such a peer knows to ask GetSegment
      b.setShmBootId(h.bootId()).setShmUid((int) h.uid());
    }
    return b.build();
  }
}
