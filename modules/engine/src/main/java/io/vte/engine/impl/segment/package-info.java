/**
 * Memory on both ends of a transfer: the local registrations ({@link
 * io.vte.engine.impl.segment.MemoryRegistry}), the descriptor this engine publishes ({@link
 * io.vte.engine.impl.segment.LocalDescriptorBuilder}, {@link
 * io.vte.engine.impl.segment.DescriptorPublisher}) and the peers' segments it reads ({@link
 * io.vte.engine.impl.segment.SegmentCache}, {@link io.vte.engine.impl.segment.PeerSegment}).
 */
package io.vte.engine.impl.segment;
