package io.vte.api;

/**
 * One device of a peer segment, obtained from {@link SegmentHandle#devices()}: {@code
 * segment.devices().get(0).active()}.
 *
 * @param name device name
 * @param active whether its port was ACTIVE when the peer described itself
 */
public record SegmentDevice(String name, boolean active) {}
