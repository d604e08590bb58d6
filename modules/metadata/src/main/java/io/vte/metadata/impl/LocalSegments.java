package io.vte.metadata.impl;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The descriptors this node published, by segment name, in publication order: what its GetSegment
 * handler serves and what an etcd store re-publishes after an outage. Safe from any thread. Shared
 * by the stores (p2p here, etcd in {@code vte-metadata-etcd}).
 */
public final class LocalSegments {

  /** Longest accepted segment name. */
  public static final int MAX_NAME_LENGTH = 256;

  private final Map<String, SegmentDescriptor> byName = new LinkedHashMap<>();

  /**
   * @param name a segment name to publish or look up
   * @return the name
   * @throws VteException INVALID_ARGUMENT when it is null, empty, too long or holds control
   *     characters
   */
  public static String checkName(String name) {
    if (name == null
        || name.isEmpty()
        || name.length() > MAX_NAME_LENGTH
        || name.chars().anyMatch(c -> c < ' ' || c == 0x7f)) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "segment name '" + name + "': expected 1.." + MAX_NAME_LENGTH + " printable characters");
    }
    return name;
  }

  /**
   * @param descriptor a descriptor this node wants to publish
   * @return null when it may be published, else an INVALID_ARGUMENT failure naming what is wrong
   */
  public static VteException publishError(SegmentDescriptor descriptor) {
    try {
      checkName(descriptor.getName());
      DescriptorValidator.validate("publish(" + descriptor.getName() + ")", descriptor);
      return null;
    } catch (VteException e) {
      return new VteException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e);
    }
  }

  /**
   * @param descriptor a descriptor this node published
   */
  public synchronized void put(SegmentDescriptor descriptor) {
    byName.put(descriptor.getName(), descriptor);
  }

  /**
   * @param name a segment name
   * @return true when it was published
   */
  public synchronized boolean remove(String name) {
    return byName.remove(name) != null;
  }

  /**
   * @param name the segment name; empty means the first one published
   * @return the descriptor, if published
   */
  public synchronized Optional<SegmentDescriptor> get(String name) {
    if (name == null || name.isEmpty()) {
      return byName.values().stream().findFirst();
    }
    return Optional.ofNullable(byName.get(name));
  }

  /**
   * @return every published descriptor, in publication order
   */
  public synchronized List<SegmentDescriptor> all() {
    return new ArrayList<>(byName.values());
  }
}
