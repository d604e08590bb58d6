package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import io.vte.verbs.soft.impl.wire.FrameError;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.FrameReader;
import io.vte.verbs.soft.impl.wire.FrameReceiver;
import io.vte.verbs.soft.impl.wire.FrameWriter;
import io.vte.verbs.soft.impl.wire.ReadOutcome;
import io.vte.verbs.soft.impl.wire.ReadState;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The frame reader's states driven directly over a channel that hands out the stream in chosen
 * chunks (one byte, odd sizes, random sizes): headers, copied, inline and direct payloads, batch
 * blocks and chained payload reads resume at any cut, and every malformed frame ends the read with
 * the typed error (and the log message) the connection reported before the reader was split out of
 * it.
 */
class FrameReaderTest {

  private static final int TARGET_BYTES = 256 * 1024;
  private static final int QPN = 0x42;
  private static final int[] CHUNKS = {1, 2, 3, 7, 31, 32, 33, 1000, 4097, 8191, 8192, 8193, 65537};

  private long target;

  @BeforeEach
  void allocate() {
    target = DirectMemory.allocate(TARGET_BYTES);
    DirectMemory.fill(target, TARGET_BYTES, (byte) 0);
  }

  @AfterEach
  void free() {
    DirectMemory.free(target);
  }

  @Test
  void plainFramesLandWholeAtEveryChunkSize() throws Exception {
    int[] sizes = {0, 100, 3000, 9000, 2047, 2048, 40_000, 1};
    for (int chunk : CHUNKS) {
      Stream s = new Stream();
      long at = target;
      for (int i = 0; i < sizes.length; i++) {
        s.frame(FrameHeader.WRITE, i, at, sizes[i], (byte) (i + 1));
        at += sizes[i] + 64;
      }
      s.header(FrameHeader.READ_REQ, sizes.length, 0, 4096); // no payload follows a READ request
      Result r = run(s.bytes(), new ChunkedChannel(chunk), new Recorder(null));
      assertEquals(ReadOutcome.WAIT, r.outcome, "chunk " + chunk);
      r.recorder.assertFrames(sizes.length + 1, "chunk " + chunk);
      assertLanded(sizes, (byte) 1, "chunk " + chunk);
      assertEquals(ReadState.HEADER, r.reader.state());
    }
  }

  @Test
  void smallFramesStraddlingTheEndOfTheStagingBufferResumeAtEveryChunkSize() throws Exception {
    int[] sizes =
        new int[700]; // 700 frames of 32 + 0..60 bytes: headers cut by the staging buffer's end
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = (i * 37) % 61;
    }
    for (int chunk : CHUNKS) {
      Stream s = new Stream();
      long[] landing = landing(sizes);
      for (int i = 0; i < sizes.length; i++) {
        s.frame(FrameHeader.WRITE, i, landing[i], sizes[i], (byte) (i + 1));
      }
      Result r = run(s.bytes(), new ChunkedChannel(chunk), new Recorder(null));
      assertEquals(ReadOutcome.WAIT, r.outcome, "chunk " + chunk);
      r.recorder.assertFrames(sizes.length, "chunk " + chunk);
      assertLanded(sizes, (byte) 1, "chunk " + chunk);
    }
  }

  @Test
  void plainFramesLandWholeAtRandomCuts() throws Exception {
    int[] sizes = {5000, 17, 12_000, 0, 2500, 30_000};
    SplittableRandom rnd = new SplittableRandom(15);
    for (int round = 0; round < 200; round++) {
      Stream s = new Stream();
      long at = target;
      byte pattern = (byte) (1 + round % 200);
      for (int i = 0; i < sizes.length; i++) {
        s.frame(FrameHeader.WRITE, i, at, sizes[i], (byte) (pattern + i));
        at += sizes[i] + 64;
      }
      DirectMemory.fill(target, TARGET_BYTES, (byte) 0);
      Result r =
          run(
              s.bytes(),
              new ChunkedChannel(rnd.split(), 1 + rnd.nextInt(9000)),
              new Recorder(null));
      assertEquals(ReadOutcome.WAIT, r.outcome);
      r.recorder.assertFrames(sizes.length, "round " + round);
      assertLanded(sizes, pattern, "round " + round);
    }
  }

  @Test
  void aBatchLandsWholeAtEveryChunkSizeWithAndWithoutChainedReads() throws Exception {
    int[] sizes = {20_000, 100, 17_000, 30_000, 0, 16 * 1024, 16 * 1024 + 1};
    int plainAfter = 50; // a plain frame after the batch: the way back from the block to the stream
    long regionLength = TARGET_BYTES;
    SoftMr region = new SoftMr(null, target, regionLength, AccessFlags.ALL_REMOTE, 7, null);
    for (SoftMr preview : new SoftMr[] {null, region}) {
      for (int chunk : CHUNKS) {
        DirectMemory.fill(target, TARGET_BYTES, (byte) 0);
        Stream s = new Stream();
        long[] landing = landing(sizes);
        s.batch(0, sizes, landing, (byte) 1);
        long plainAt = landing[sizes.length - 1] + sizes[sizes.length - 1] + 64;
        s.frame(FrameHeader.WRITE, sizes.length, plainAt, plainAfter, (byte) 99);
        Recorder rec = new Recorder(preview);
        Result r = run(s.bytes(), new ChunkedChannel(chunk), rec);
        String what = "chunk " + chunk + (preview == null ? "" : ", chained");
        assertEquals(ReadOutcome.WAIT, r.outcome, what);
        rec.assertFrames(sizes.length + 1, what);
        assertLanded(sizes, (byte) 1, what);
        assertPattern(plainAt, plainAfter, (byte) 99, what);
        if (preview != null) {
          assertTrue(rec.previews > 0, what + ": no payload was chained");
        }
      }
    }
  }

  @Test
  void aBatchChainsLaterPayloadsIntoTheReadThatEndsTheCurrentOne() throws Exception {
    int[] sizes = {20_000, 20_000, 20_000, 100, 20_000};
    SoftMr region = new SoftMr(null, target, TARGET_BYTES, AccessFlags.ALL_REMOTE, 7, null);
    Stream s = new Stream();
    s.batch(0, sizes, landing(sizes), (byte) 5);
    byte[] bytes = s.bytes();
    ChunkedChannel ch = new ChunkedChannel(bytes.length);
    Recorder rec = new Recorder(region);
    FrameReader reader = rec.attach(ch);
    ch.offer(bytes, bytes.length);
    assertEquals(ReadOutcome.WAIT, reader.read());
    rec.assertFrames(sizes.length, "one offer");
    assertLanded(sizes, (byte) 5, "one offer");
    assertTrue(rec.previews >= 3, "previews " + rec.previews);
    assertTrue(
        ch.reads <= 4, "the batch took " + ch.reads + " reads"); // block, then one scattering read
  }

  @Test
  void aRunOfSmallFramesGrowsTheStagingAndABatchAfterItReadsNarrowAgain() throws Exception {
    int[] small = new int[50];
    Arrays.fill(small, 4000);
    int[] large = {20_000, 30_000, 40_000};
    Stream s = new Stream();
    long[] smallLanding = landing(small);
    for (int i = 0; i < small.length; i++) {
      s.frame(FrameHeader.WRITE, i, smallLanding[i], small[i], (byte) (1 + i));
    }
    int smallEnd = s.length();
    s.batch(small.length, large, landing(large), (byte) 100);
    byte[] bytes = s.bytes();
    ChunkedChannel ch = new ChunkedChannel(bytes.length);
    Recorder rec = new Recorder(null);
    FrameReader reader = rec.attach(ch);

    ch.offer(bytes, smallEnd);
    assertEquals(ReadOutcome.WAIT, drain(reader, ch));
    assertLanded(small, (byte) 1, "small frames");
    // the staging doubles up to 64 KiB: at most 10 reads, where a fixed 8 KiB staging took 17
    assertTrue(
        ch.reads <= 10,
        smallEnd + " B of small frames took " + ch.reads + " reads " + ch.stagingRoom);

    DirectMemory.fill(target, TARGET_BYTES, (byte) 0);
    ch.stagingRoom.clear();
    ch.offer(bytes, bytes.length);
    assertEquals(ReadOutcome.WAIT, drain(reader, ch));
    rec.assertFrames(small.length + large.length, "small frames, then a batch");
    assertLanded(large, (byte) 100, "the batch");
    // the read that brought the batch's header was wide (small frames came before it), no other
    List<Integer> afterTheHeader = ch.stagingRoom.subList(1, ch.stagingRoom.size());
    assertTrue(
        afterTheHeader.stream().allMatch(room -> room <= FrameReader.RX_BYTES),
        "room in the staging at each read of the batch: " + ch.stagingRoom);
  }

  @Test
  void theStateFollowsTheFrameBeingRead() throws Exception {
    Stream s = new Stream();
    s.frame(FrameHeader.WRITE, 0, target, 1000, (byte) 1); // copied from staging
    s.frame(FrameHeader.WRITE, 1, target + 4096, 50_000, (byte) 2); // read straight into the target
    int[] sizes = {100, 20_000};
    s.batch(2, sizes, new long[] {target + 60_000, target + 70_000}, (byte) 3);
    byte[] bytes = s.bytes();
    ChunkedChannel ch = new ChunkedChannel(bytes.length);
    Recorder rec = new Recorder(null);
    FrameReader reader = rec.attach(ch);
    Set<ReadState> seen = EnumSet.noneOf(ReadState.class);
    int[] stops = {
      10,
      32,
      500,
      1032,
      1064,
      1064 + 3000,
      1064 + 50_000,
      1064 + 50_032,
      1064 + 50_040,
      1064 + 50_032 + 2 * 32 + 100,
      1064 + 50_032 + 2 * 32 + 100 + 5,
      bytes.length
    };
    ReadState[] expected = {
      ReadState.HEADER,
      ReadState.PAYLOAD,
      ReadState.PAYLOAD,
      ReadState.HEADER,
      ReadState.DIRECT,
      ReadState.DIRECT,
      ReadState.HEADER,
      ReadState.BLOCK,
      ReadState.BLOCK,
      ReadState.DIRECT,
      ReadState.DIRECT,
      ReadState.HEADER
    };
    int offered = 0;
    for (int i = 0; i < stops.length; i++) {
      ch.offer(bytes, stops[i]);
      offered = stops[i];
      while (reader.read() == ReadOutcome.WAIT && ch.pending() > 0) {
        // the reads of one wake-up were spent: the selector would call again
      }
      assertEquals(expected[i], reader.state(), "after " + offered + " bytes");
      seen.add(reader.state());
    }
    assertEquals(
        EnumSet.of(ReadState.HEADER, ReadState.PAYLOAD, ReadState.DIRECT, ReadState.BLOCK), seen);
    rec.assertFrames(4, "states");
    // the small payload of the batch went through INLINE_PAYLOAD without stopping there: it was in
    // the block
    assertPattern(target + 60_000, 100, (byte) 3, "inline");
    assertPattern(target + 70_000, 20_000, (byte) 4, "after the block");
  }

  @Test
  void badHeadersGiveTheirTypedErrors() throws Exception {
    assertError(new Stream().raw(junkHeader((byte) 0x00)), FrameError.Kind.BAD_MAGIC, "bad magic");
    assertError(
        new Stream().header(FrameHeader.BATCH, 0, 0, 16),
        FrameError.Kind.BAD_BATCH_LENGTH,
        "batch of 16 bytes");
    assertError(
        new Stream().header(FrameHeader.BATCH, 0, 0, FrameWriter.TX_BYTES + 1),
        FrameError.Kind.BAD_BATCH_LENGTH,
        "batch of " + (FrameWriter.TX_BYTES + 1) + " bytes");
    assertError(
        new Stream().header(FrameHeader.BATCH, 0, 0, -1),
        FrameError.Kind.BAD_BATCH_LENGTH,
        "batch of 4294967295 bytes");
    // a block whose frame has a bad magic, a BATCH inside a block, a block that ends inside a
    // header
    Stream badInBlock =
        new Stream().header(FrameHeader.BATCH, 0, 0, 32).raw(junkHeader((byte) 0x11));
    assertError(badInBlock, FrameError.Kind.BAD_FRAME_IN_BATCH, "bad frame in batch");
    Stream nested =
        new Stream().header(FrameHeader.BATCH, 0, 0, 32).header(FrameHeader.BATCH, 0, 0, 32);
    assertError(nested, FrameError.Kind.BAD_FRAME_IN_BATCH, "bad frame in batch");
    Stream cut =
        new Stream()
            .header(FrameHeader.BATCH, 0, 0, 40)
            .header(FrameHeader.READ_REQ, 0, 0, 8)
            .raw(new byte[8]);
    assertError(cut, FrameError.Kind.BAD_FRAME_IN_BATCH, "bad frame in batch");
    // a small payload announced longer than what is left of its block
    Stream beyond =
        new Stream()
            .header(FrameHeader.BATCH, 0, 0, 32 + 50)
            .header(FrameHeader.WRITE, 0, target, 100)
            .raw(new byte[50]);
    assertError(beyond, FrameError.Kind.PAYLOAD_BEYOND_BATCH, "payload beyond its batch");
    // the receiver refuses the header
    Stream refused = new Stream().header(FrameHeader.NAK, 9, 0, 0);
    assertError(refused, FrameError.Kind.REJECTED, "rejected frame[op=17 qpn=66 seq=9 len=0]");
  }

  @Test
  void aBadMagicAfterGoodFramesIsReportedOnlyOnceItsHeaderIsWhole() throws Exception {
    Stream s = new Stream();
    s.frame(FrameHeader.WRITE, 0, target, 3000, (byte) 1);
    s.raw(junkHeader((byte) 0x7f));
    byte[] bytes = s.bytes();
    ChunkedChannel ch = new ChunkedChannel(1);
    Recorder rec = new Recorder(null);
    FrameReader reader = rec.attach(ch);
    for (int offered = 1; offered <= bytes.length; offered++) {
      ch.offer(bytes, offered);
      ReadOutcome o = reader.read();
      if (offered < bytes.length) {
        assertEquals(ReadOutcome.WAIT, o, "after " + offered + " bytes");
        assertNull(reader.error());
      } else {
        assertEquals(ReadOutcome.PROTOCOL_ERROR, o);
        assertEquals(FrameError.Kind.BAD_MAGIC, reader.error().kind());
      }
    }
    rec.assertFrames(1, "before the bad frame");
  }

  @Test
  void theEndOfTheStreamIsReportedInEveryState() throws Exception {
    Stream s = new Stream();
    s.frame(FrameHeader.WRITE, 0, target, 1000, (byte) 1);
    s.frame(FrameHeader.WRITE, 1, target + 4096, 50_000, (byte) 2);
    s.batch(2, new int[] {100, 20_000}, new long[] {target + 60_000, target + 70_000}, (byte) 3);
    byte[] bytes = s.bytes();
    for (int end :
        new int[] {0, 10, 500, 1064 + 3000, 1064 + 50_040, bytes.length - 10, bytes.length}) {
      ChunkedChannel ch = new ChunkedChannel(997);
      ch.offer(bytes, end);
      ch.eof = true;
      Recorder rec = new Recorder(null);
      FrameReader reader = rec.attach(ch);
      ReadOutcome o;
      int calls = 0;
      while ((o = reader.read()) == ReadOutcome.WAIT) {
        assertTrue(++calls < 100_000, "no end after " + end + " bytes");
      }
      assertEquals(ReadOutcome.END_OF_STREAM, o, "after " + end + " bytes");
    }
  }

  @Test
  void aReceiverThatCannotTakeAFramePausesReadingAndNothingIsLost() throws Exception {
    int[] sizes = {100, 3000, 50};
    Stream s = new Stream();
    long at = target;
    for (int i = 0; i < sizes.length; i++) {
      s.frame(FrameHeader.WRITE, i, at, sizes[i], (byte) (i + 1));
      at += sizes[i] + 64;
    }
    byte[] bytes = s.bytes();
    ChunkedChannel ch = new ChunkedChannel(bytes.length);
    Recorder rec = new Recorder(null);
    FrameReader reader = rec.attach(ch);
    ch.offer(bytes, bytes.length);
    rec.room = 1;
    assertEquals(ReadOutcome.PAUSED, reader.read());
    assertEquals(1, rec.headers.size());
    rec.room = 1;
    assertEquals(ReadOutcome.PAUSED, reader.read());
    assertEquals(2, rec.headers.size());
    rec.room = Integer.MAX_VALUE;
    assertEquals(ReadOutcome.WAIT, reader.read());
    rec.assertFrames(sizes.length, "paused twice");
    assertLanded(sizes, (byte) 1, "paused twice");
  }

  @Test
  void aTargetRegionClosedUnderAPayloadLosesOnlyThatPayload() throws Exception {
    try (SoftVerbsProvider provider =
        (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig())) {
      ProtectionDomain pd = provider.open("soft0").allocPd();
      for (int size :
          new int[] {1000, 50_000}) { // copied from staging, read straight from the channel
        SoftMr closing = (SoftMr) pd.registerMemory(target, 64 * 1024, AccessFlags.ALL_REMOTE);
        Stream s = new Stream();
        s.frame(FrameHeader.WRITE, 0, target, size, (byte) 1);
        long next = target + 100_000;
        s.frame(FrameHeader.WRITE, 1, next, 3000, (byte) 2);
        byte[] bytes = s.bytes();
        ChunkedChannel ch = new ChunkedChannel(1000);
        Recorder rec = new Recorder(null);
        rec.region = closing;
        FrameReader reader = rec.attach(ch);
        ch.offer(bytes, 32 + 500);
        drain(reader, ch);
        closing.close();
        ch.offer(bytes, bytes.length);
        assertEquals(ReadOutcome.WAIT, drain(reader, ch));
        assertEquals(List.of(0, 1), rec.done);
        assertEquals(List.of(false, true), rec.intact, "size " + size);
        assertPattern(next, 3000, (byte) 2, "the frame after the lost payload, size " + size);
        assertEquals(
            0, DirectMemory.getByte(target + 600), "nothing landed after the region closed");
      }
    }
  }

  // ---- helpers ----

  private static byte[] junkHeader(byte magic) {
    byte[] h = new byte[FrameHeader.SIZE];
    h[0] = magic;
    h[1] = FrameHeader.WRITE;
    return h;
  }

  private void assertError(Stream s, FrameError.Kind kind, String message) {
    byte[] bytes = s.bytes();
    for (int chunk : new int[] {1, 5, bytes.length}) {
      Result r = run(bytes, new ChunkedChannel(chunk), new Recorder(null));
      assertEquals(ReadOutcome.PROTOCOL_ERROR, r.outcome, message + ", chunk " + chunk);
      assertEquals(kind, r.reader.error().kind(), message);
      assertEquals(message, r.reader.error().message());
    }
  }

  private long[] landing(int[] sizes) {
    long[] landing = new long[sizes.length];
    long at = target;
    for (int i = 0; i < sizes.length; i++) {
      landing[i] = at;
      at += sizes[i] + 64;
    }
    return landing;
  }

  /**
   * Frame {@code i} wrote {@code pattern + i} over exactly its size, and nothing in the 64 bytes
   * after.
   */
  private void assertLanded(int[] sizes, byte pattern, String what) {
    long[] landing = landing(sizes);
    for (int i = 0; i < sizes.length; i++) {
      assertPattern(landing[i], sizes[i], (byte) (pattern + i), what + ": frame " + i);
      for (int k = 0; k < 64; k++) {
        assertEquals(
            0,
            DirectMemory.getByte(landing[i] + sizes[i] + k),
            what + ": frame " + i + " wrote past its end");
      }
    }
  }

  private static void assertPattern(long at, int n, byte pattern, String what) {
    for (int k = 0; k < n; k++) {
      if (DirectMemory.getByte(at + k) != pattern) {
        assertEquals(pattern, DirectMemory.getByte(at + k), what + ": byte " + k);
      }
    }
  }

  private record Result(FrameReader reader, Recorder recorder, ReadOutcome outcome) {}

  /**
   * Offers the whole stream and reads until the reader stops for another reason than a spent
   * wake-up.
   */
  private static Result run(byte[] bytes, ChunkedChannel ch, Recorder rec) {
    FrameReader reader = rec.attach(ch);
    ch.offer(bytes, bytes.length);
    return new Result(reader, rec, drain(reader, ch));
  }

  private static ReadOutcome drain(FrameReader reader, ChunkedChannel ch) {
    try {
      ReadOutcome o;
      int calls = 0;
      while ((o = reader.read()) == ReadOutcome.WAIT && (ch.pending() > 0 || ch.eof)) {
        assertTrue(++calls < 10_000_000, "the reader makes no progress");
      }
      return o;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Builds a byte stream of frames for QP {@link #QPN}. */
  private static final class Stream {
    private final ByteBuffer buf = ByteBuffer.allocate(1 << 20);

    Stream header(int opcode, int seq, long raddr, int length) {
      FrameHeader.encode(buf, opcode, 0, QPN, seq, 7, raddr, length, 0);
      return this;
    }

    Stream raw(byte[] bytes) {
      buf.put(bytes);
      return this;
    }

    Stream frame(int opcode, int seq, long raddr, int length, byte pattern) {
      header(opcode, seq, raddr, length);
      for (int k = 0; k < length; k++) {
        buf.put(pattern);
      }
      return this;
    }

    /**
     * A BATCH of WRITEs numbered from {@code firstSeq}: small payloads (<= 16 KiB) in the block,
     * large ones after.
     */
    Stream batch(int firstSeq, int[] sizes, long[] landing, byte pattern) {
      int block = 0;
      for (int size : sizes) {
        block += FrameHeader.SIZE + (size <= FrameWriter.SMALL_PAYLOAD ? size : 0);
      }
      header(FrameHeader.BATCH, 0, 0, block);
      for (int i = 0; i < sizes.length; i++) {
        header(FrameHeader.WRITE, firstSeq + i, landing[i], sizes[i]);
        if (sizes[i] <= FrameWriter.SMALL_PAYLOAD) {
          fill(sizes[i], (byte) (pattern + i));
        }
      }
      for (int i = 0; i < sizes.length; i++) {
        if (sizes[i] > FrameWriter.SMALL_PAYLOAD) {
          fill(sizes[i], (byte) (pattern + i));
        }
      }
      return this;
    }

    private void fill(int n, byte pattern) {
      for (int k = 0; k < n; k++) {
        buf.put(pattern);
      }
    }

    int length() {
      return buf.position();
    }

    byte[] bytes() {
      byte[] out = new byte[buf.position()];
      buf.flip().get(out);
      return out;
    }
  }

  /**
   * Plays the responder: WRITEs land at their raddr (in order of sequence, each seen once), other
   * requests have no payload; NAKs are refused. Optionally vouches for later WRITEs of a batch with
   * one region.
   */
  private static final class Recorder implements FrameReceiver {
    final SoftMr preview;
    private FrameReader reader;

    /** Guards the target of frame 0 only. */
    SoftMr region;

    int room = Integer.MAX_VALUE;
    int previews;
    final List<Integer> headers = new ArrayList<>();
    final List<Integer> done = new ArrayList<>();
    final List<Boolean> intact = new ArrayList<>();
    private int expected;

    Recorder(SoftMr preview) {
      this.preview = preview;
    }

    /**
     * @return a reader of {@code ch} that hands its frames to this recorder
     */
    FrameReader attach(ChunkedChannel ch) {
      reader = new FrameReader(ch, this);
      return reader;
    }

    @Override
    public boolean canReceive() {
      return room > 0;
    }

    @Override
    public boolean onHeader(FrameHeader h) {
      room--;
      if (h.opcode == FrameHeader.NAK || h.qpn != QPN) {
        return false;
      }
      headers.add(h.seq);
      if (h.opcode == FrameHeader.WRITE) {
        reader.expectPayload(h.raddr, h.length, h.seq == 0 ? region : null);
      } else {
        done.add(h.seq);
        intact.add(true);
      }
      return true;
    }

    @Override
    public void onPayloadDone(FrameHeader h, boolean ok) {
      done.add(h.seq);
      intact.add(ok);
      expected = h.seq + 1;
    }

    @Override
    public SoftMr previewWrite(FrameHeader h, int ahead) {
      if (preview == null || h.opcode != FrameHeader.WRITE || h.seq - expected != ahead) {
        return null;
      }
      previews++;
      return preview;
    }

    void assertFrames(int n, String what) {
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        all.add(i);
      }
      assertEquals(all, headers, what + ": headers");
      assertEquals(all, done, what + ": frames done");
      assertFalse(intact.contains(false), what + ": a payload was lost");
    }
  }

  /**
   * A channel that gives out what was offered, at most {@code chunk} bytes a read (or random
   * sizes).
   */
  private static final class ChunkedChannel implements ScatteringByteChannel {
    private final SplittableRandom random;
    private final int chunk;
    private byte[] data = new byte[0];
    private int available;
    private int pos;
    boolean eof;
    int reads;

    /** Room in the last buffer of each read: the reader's staging. */
    final List<Integer> stagingRoom = new ArrayList<>();

    ChunkedChannel(int chunk) {
      this(null, chunk);
    }

    ChunkedChannel(SplittableRandom random, int chunk) {
      this.random = random;
      this.chunk = chunk;
    }

    void offer(byte[] bytes, int upTo) {
      data = bytes;
      available = upTo;
    }

    int pending() {
      return available - pos;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
      reads++;
      stagingRoom.add(dsts[offset + length - 1].remaining());
      if (pos == available) {
        return eof && pos == available ? -1 : 0;
      }
      int budget = Math.min(available - pos, random == null ? chunk : 1 + random.nextInt(chunk));
      long n = 0;
      for (int i = offset; i < offset + length && budget > 0; i++) {
        int k = Math.min(budget, dsts[i].remaining());
        dsts[i].put(data, pos, k);
        pos += k;
        budget -= k;
        n += k;
      }
      return n;
    }

    @Override
    public long read(ByteBuffer[] dsts) {
      return read(dsts, 0, dsts.length);
    }

    @Override
    public int read(ByteBuffer dst) {
      return (int) read(new ByteBuffer[] {dst}, 0, 1);
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
