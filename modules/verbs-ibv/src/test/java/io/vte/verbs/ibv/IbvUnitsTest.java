package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.IbverbsOptions;
import io.vte.api.InvalidOptionException;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.ibv.device.IbvMtu;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pure-Java parts: errno mapping, contract check, settings, MTU codes, handle retirement. */
class IbvUnitsTest {

  private static int[] javaLayout() {
    return new int[] {
      WorkRequestBatch.STRIDE,
      0,
      8,
      16,
      24,
      28,
      32,
      36,
      40,
      41,
      WorkCompletionBatch.STRIDE,
      0,
      8,
      12,
      16,
      20,
      24,
      28
    };
  }

  @Test
  void errnoBecomesTypedErrorNamingCallAndValue() {
    VerbsException e = IbvErrors.fromErrno("ibv_reg_mr", 12, "address 0x1000 length 4096");
    assertEquals(VerbsError.NO_MEMORY, e.error());
    assertEquals(
        "NO_MEMORY: ibv_reg_mr failed with ENOMEM (errno 12): address 0x1000 length 4096",
        e.getMessage());
    assertEquals(VerbsError.INVALID_ARGUMENT, IbvErrors.errorOf(22));
    assertEquals(VerbsError.NOT_SUPPORTED, IbvErrors.errorOf(38));
    assertEquals(VerbsError.NOT_SUPPORTED, IbvErrors.errorOf(95));
    assertEquals(VerbsError.NO_DEVICE, IbvErrors.errorOf(19));
    assertEquals(VerbsError.BUSY, IbvErrors.errorOf(16));
    assertEquals(VerbsError.ACCESS, IbvErrors.errorOf(13));
    assertEquals(VerbsError.CLOSED, IbvErrors.errorOf(9));
    assertEquals(VerbsError.IO_ERROR, IbvErrors.errorOf(110));
    assertEquals("errno 4242", IbvErrors.errnoName(4242));
  }

  @Test
  void contractCheckAcceptsTheJavaLayoutAndNamesTheFirstDifference() {
    assertNull(IbvLibrary.checkContract(IbvNative.ABI_VERSION, javaLayout()));
    int[] moved = javaLayout();
    moved[13] = 16;
    String msg = IbvLibrary.checkContract(IbvNative.ABI_VERSION, moved);
    assertTrue(
        msg.contains("WorkCompletionBatch.OFF_QP_NUM as 16") && msg.contains("uses 12"), msg);
    assertTrue(IbvLibrary.checkContract(IbvNative.ABI_VERSION + 1, javaLayout()).contains("ABI"));
    assertTrue(
        IbvLibrary.checkContract(IbvNative.ABI_VERSION, new int[3]).contains("3 layout values"));
  }

  @Test
  void settingsComeFromJsonStrictlyAndBadValuesAreNamed() {
    IbvSettings s = IbvSettings.fromJson(new JsonObject().put("gidIndex", 3).put("maxRdAtomic", 8));
    assertEquals(3, s.gidIndex());
    assertEquals(8, s.maxRdAtomic());
    assertEquals(new IbvSettings().minRnrTimer(), s.minRnrTimer());
    InvalidOptionException type =
        assertThrows(
            InvalidOptionException.class,
            () -> IbvSettings.fromJson(new JsonObject().put("gidIndex", "3")));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, type.code());
    assertEquals("gidIndex", type.path());
    assertTrue(type.getMessage().contains("\"3\""), type.getMessage());
    InvalidOptionException range =
        assertThrows(
            InvalidOptionException.class,
            () -> IbvSettings.fromJson(new JsonObject().put("maxRdAtomic", 17)));
    assertTrue(
        range.getMessage().contains("'maxRdAtomic' = 17 is invalid: expected 1..16"),
        range.getMessage());
    InvalidOptionException unknown =
        assertThrows(
            InvalidOptionException.class,
            () -> IbvSettings.fromJson(new JsonObject().put("gidIdx", 1)));
    assertEquals("gidIdx", unknown.path());
    assertTrue(unknown.getMessage().contains("gidIdx"), unknown.getMessage());
  }

  @Test
  void sharedFieldsTakeTheEngineOptionsDefaultsAndRanges() {
    JsonObject defaults = new IbvSettings().toJson();
    JsonObject engine = new IbverbsOptions().toJson();
    for (String name : IbverbsOptions.FIELDS.names()) {
      assertEquals(engine.getValue(name), defaults.getValue(name), name);
    }
    assertThrows(
        InvalidOptionException.class,
        () -> IbvSettings.fromJson(new JsonObject().put("serviceLevel", 16)));
  }

  @Test
  void mtuConvertsBothWaysAndRejectsOddSizes() {
    int[] bytes = {256, 512, 1024, 2048, 4096};
    for (int i = 0; i < bytes.length; i++) {
      assertEquals(i + 1, IbvMtu.toCode(bytes[i]));
      assertEquals(bytes[i], IbvMtu.toBytes(i + 1));
    }
    assertEquals(0, IbvMtu.toBytes(0));
    VerbsException e = assertThrows(VerbsException.class, () -> IbvMtu.toCode(1500));
    assertTrue(e.getMessage().contains("got 1500"), e.getMessage());
  }

  @Test
  void retiredHandleIsNeverBorrowedAgainAndRetireWaitsForBorrowers() throws Exception {
    for (int round = 0; round < 200; round++) {
      NativeHandle h = new NativeHandle(0x1234);
      CyclicBarrier start = new CyclicBarrier(2);
      AtomicBoolean retired = new AtomicBoolean();
      AtomicLong usedAfterRetire = new AtomicLong();
      Thread user =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                long p;
                while ((p = h.borrow()) != 0) {
                  if (retired.get()) {
                    usedAfterRetire.incrementAndGet();
                  }
                  h.release();
                }
              });
      user.start();
      start.await();
      assertEquals(0x1234, h.retire());
      retired.set(true);
      user.join();
      assertEquals(0, usedAfterRetire.get(), "a borrow was live after retire() returned");
      assertEquals(0, h.retire(), "second retire must be a no-op");
      assertEquals(0, h.borrow());
    }
  }
}
