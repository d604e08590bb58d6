package io.vte.verbs;

import static io.vte.api.OptionFields.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.InvalidOptionException;
import io.vte.api.OptionFields;
import io.vte.api.OptionKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A provider from outside VTE declares its own options class and table; {@link VerbsProviders}
 * reads its section strictly through that table and validates it once before {@code open}.
 */
class ThirdPartyProviderTest {

  @Test
  void aProviderSectionIsReadByTheProvidersOwnTable() {
    try (VerbsProvider p =
        VerbsProviders.create("ring", new JsonObject().put("depth", 8).put("label", "r"))) {
      assertEquals(List.of(), p.devices());
      assertEquals("ring", p.name());
      assertEquals("ring depth=8 label=r", p.unavailabilityCause().getMessage());
    }
    try (VerbsProvider p = VerbsProviders.create("ring", new JsonObject())) {
      assertEquals("ring depth=4 label=null", p.unavailabilityCause().getMessage(), "defaults");
    }
  }

  @Test
  void unknownKeysWrongTypesAndBadValuesAreNamed() {
    int openedBefore = RingFactory.opened;
    InvalidOptionException unknown =
        assertThrows(
            InvalidOptionException.class,
            () -> VerbsProviders.create("ring", new JsonObject().put("deep", 8)));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, unknown.code());
    assertEquals("deep", unknown.path());
    assertTrue(unknown.getMessage().contains("unknown ring verbs option"), unknown.getMessage());
    InvalidOptionException type =
        assertThrows(
            InvalidOptionException.class,
            () -> VerbsProviders.create("ring", new JsonObject().put("depth", "8")));
    assertEquals("depth", type.path());
    InvalidOptionException range =
        assertThrows(
            InvalidOptionException.class,
            () -> new RingFactory().create(new RingOptions().setDepth(0)));
    assertTrue(range.getMessage().contains("'depth' = 0 is invalid"), range.getMessage());
    assertEquals(openedBefore, RingFactory.opened, "a bad option never reaches open");
  }

  /** The options of the test provider. */
  public static final class RingOptions {
    static final OptionFields<RingOptions> FIELDS =
        OptionFields.of(
            field("depth", OptionKind.INT, 4, (RingOptions o) -> o.depth, RingOptions::setDepth)
                .check(n -> n >= 1 && n <= 64, "1..64"),
            field("label", OptionKind.STRING, null, o -> o.label, (o, v) -> o.label = v));

    private int depth;
    private String label;

    /** Creates the defaults. */
    public RingOptions() {
      FIELDS.applyDefaults(this);
    }

    RingOptions setDepth(int depth) {
      this.depth = depth;
      return this;
    }
  }

  /** A provider with no devices that reports the options it was opened with. */
  public static final class RingFactory implements VerbsProviderFactory<RingOptions> {
    static int opened;

    /** For the ServiceLoader. */
    public RingFactory() {}

    @Override
    public String name() {
      return "ring";
    }

    @Override
    public OptionFields<RingOptions> fields() {
      return RingOptions.FIELDS;
    }

    @Override
    public RingOptions defaults() {
      return new RingOptions();
    }

    @Override
    public VerbsProvider open(RingOptions options) {
      opened++;
      String seen = "ring depth=" + options.depth + " label=" + options.label;
      return new VerbsProvider() {
        @Override
        public String name() {
          return "ring";
        }

        @Override
        public boolean isAvailable() {
          return false;
        }

        @Override
        public Throwable unavailabilityCause() {
          return new IllegalStateException(seen);
        }

        @Override
        public List<DeviceInfo> devices() {
          return List.of();
        }

        @Override
        public VerbsContext open(String deviceName) {
          throw new VerbsException(VerbsError.NO_DEVICE, deviceName);
        }

        @Override
        public void close() {}
      };
    }
  }
}
