package io.vte.engine.impl.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlicerTest {

  private static final SliceCallback NONE =
      new SliceCallback() {
        @Override
        public void onSliceDone(Slice slice, int status, Throwable cause) {}

        @Override
        public boolean isAbandoned() {
          return false;
        }
      };

  @Test
  void slicesAreContiguousBoundedAndCoverTheRequest() {
    int size = 4096;
    for (long length : new long[] {1, size - 1, size, size + 1, 3L * size + 5, 64L * size}) {
      List<Slice> out = new ArrayList<>();
      new Slicer(size).cut(NONE, WrOpcode.RDMA_WRITE, 10_000, 900_000, length, out);
      assertEquals((length + size - 1) / size, out.size(), "slices of " + length);
      long expectLocal = 10_000;
      long expectRemote = 900_000;
      long total = 0;
      for (int i = 0; i < out.size(); i++) {
        Slice s = out.get(i);
        assertEquals(i, s.index());
        assertEquals(expectLocal, s.localAddress());
        assertEquals(expectRemote, s.remoteAddress());
        assertTrue(s.length() > 0 && s.length() <= size, "slice length " + s.length());
        assertTrue(i == out.size() - 1 || s.length() == size, "only the last slice may be short");
        expectLocal += s.length();
        expectRemote += s.length();
        total += s.length();
      }
      assertEquals(length, total);
    }
  }

  @Test
  void countHandlesLargeRequests() {
    assertEquals(4096, new Slicer(65536).count(256L << 20));
    assertEquals(4097, new Slicer(65536).count((256L << 20) + 1));
  }
}
