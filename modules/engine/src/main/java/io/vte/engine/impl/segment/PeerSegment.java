package io.vte.engine.impl.segment;

import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** An immutable view of a peer's {@link SegmentDescriptor}, with range lookups for validation. */
public final class PeerSegment implements SegmentHandle {

  private final String name;
  private final SegmentDescriptor descriptor;
  private final List<SegmentDevice> devices;
  private final List<SegmentBuffer> buffers;
  private final int[][] rkeys;

  /**
   * @param name the name it was opened with
   * @param descriptor the peer's descriptor
   */
  public PeerSegment(String name, SegmentDescriptor descriptor) {
    this.name = name;
    this.descriptor = descriptor;
    List<SegmentDevice> devs = new ArrayList<>(descriptor.getDevicesCount());
    for (DeviceDesc d : descriptor.getDevicesList()) {
      devs.add(new SegmentDevice(d.getName(), d.getActive()));
    }
    List<SegmentBuffer> bufs = new ArrayList<>(descriptor.getBuffersCount());
    rkeys = new int[descriptor.getBuffersCount()][];
    for (int i = 0; i < descriptor.getBuffersCount(); i++) {
      BufferDesc b = descriptor.getBuffers(i);
      bufs.add(
          new SegmentBuffer(
              b.getLocation(),
              b.getAddress(),
              b.getLength(),
              List.copyOf(b.getRkeysList()),
              b.hasShm() ? b.getShm().getPath() : ""));
      rkeys[i] = new int[b.getRkeysCount()];
      for (int k = 0; k < rkeys[i].length; k++) {
        rkeys[i][k] = b.getRkeys(k);
      }
    }
    this.devices = Collections.unmodifiableList(devs);
    this.buffers = Collections.unmodifiableList(bufs);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String serverName() {
    return descriptor.getServerName();
  }

  @Override
  public long version() {
    return descriptor.getVersion();
  }

  @Override
  public List<SegmentDevice> devices() {
    return devices;
  }

  @Override
  public List<SegmentBuffer> buffers() {
    return buffers;
  }

  /**
   * @return the descriptor it was made from
   */
  public SegmentDescriptor descriptor() {
    return descriptor;
  }

  /**
   * @param address first remote address
   * @param length bytes
   * @return the index of the buffer wholly containing the range, or -1
   */
  public int bufferIndexOf(long address, long length) {
    for (int i = 0; i < buffers.size(); i++) {
      if (buffers.get(i).contains(address, length)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * @param bufferIndex buffer index
   * @param deviceIndex peer device index
   * @return true when the buffer has a key on that device
   */
  public boolean hasRkey(int bufferIndex, int deviceIndex) {
    return deviceIndex < rkeys[bufferIndex].length;
  }

  /**
   * @param bufferIndex buffer index
   * @param deviceIndex peer device index
   * @return the buffer's remote key on that device
   */
  public int rkey(int bufferIndex, int deviceIndex) {
    return rkeys[bufferIndex][deviceIndex];
  }

  @Override
  public String toString() {
    return "Segment["
        + name
        + " @"
        + serverName()
        + " v"
        + version()
        + ", "
        + devices.size()
        + " devices, "
        + buffers.size()
        + " buffers]";
  }
}
