package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.MemoryRegion;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The set-up the fake's wire tests share: a fresh fake libibverbs, a connected {@link FakePair}
 * with its default settings, and two direct buffers of {@link #SIZE} bytes registered for every
 * remote access; after each test the pair is closed and the fake must hold nothing live.
 */
abstract class FakePairFixture {

  /** Bytes of each buffer. */
  static final int SIZE = 64 * 1024;

  FakePair pair;
  ByteBuffer src;
  ByteBuffer dst;
  MemoryRegion srcMr;
  MemoryRegion dstMr;

  @BeforeEach
  void openPair() {
    FakeIbverbs.reset();
    pair = new FakePair(settings());
    src = ByteBuffer.allocateDirect(SIZE);
    dst = ByteBuffer.allocateDirect(SIZE);
    srcMr = pair.pd.registerMemory(src, AccessFlags.ALL_REMOTE);
    dstMr = pair.pd.registerMemory(dst, AccessFlags.ALL_REMOTE);
  }

  /**
   * @return the pair's settings: the defaults
   */
  IbvSettings settings() {
    return new IbvSettings();
  }

  @AfterEach
  void closePair() {
    pair.close();
    FakeIbverbs.assertNothingLive();
  }
}
