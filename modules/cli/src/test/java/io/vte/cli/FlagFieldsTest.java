package io.vte.cli;

import static io.vte.api.OptionFields.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vte.api.OptionFields;
import io.vte.api.OptionKind;
import io.vte.vertx.EngineBus;
import io.vte.vertx.VerticleOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The CLI's own flags take their names, defaults and ranges from their field tables. */
class FlagFieldsTest {

  @Test
  void aFlagIsItsFieldsNameInKebabCase() {
    assertEquals("--http-port", FlagFields.flag("httpPort"));
    assertEquals("--timeout-ms", FlagFields.flag("timeoutMs"));
    assertEquals("--bytes", FlagFields.flag("bytes"));
  }

  @Test
  void serveShowsAndTakesTheTablesDefaults() {
    CommandLine line = new CommandLine(new ServeCommand());
    ServeCommand.FLAGS.requireFlagsOf(line.getCommandSpec());
    line.parseArgs();
    assertDefaults(
        line.getCommandSpec(),
        Map.of(
            "--http-port",
            "9464",
            "--http-host",
            VerticleOptions.HTTP_HOST.defaultValue(),
            "--pool-size",
            "1M",
            "--address",
            EngineBus.DEFAULT_ADDRESS));
    assertEquals(1L << 20, (Long) line.getCommandSpec().findOption("--pool-size").getValue());
    assertEquals(9464, (Integer) line.getCommandSpec().findOption("--http-port").getValue());
  }

  @Test
  void linksShowsAndTakesTheTablesDefaults() {
    CommandLine line = new CommandLine(new LinksCommand());
    LinksCommand.FLAGS.requireFlagsOf(line.getCommandSpec());
    line.parseArgs("--target", "h:1");
    assertDefaults(line.getCommandSpec(), Map.of("--bytes", "64", "--timeout-ms", "5000"));
    assertEquals(5000L, (Long) line.getCommandSpec().findOption("--timeout-ms").getValue());
  }

  @Test
  void aBadValueIsRefusedNamingItsFlagAndTheFieldsRange() {
    ServeCommand serve = new ServeCommand();
    CommandLine line = new CommandLine(serve);
    line.parseArgs("--pool-size", "-1");
    ParameterException e =
        assertThrows(ParameterException.class, () -> ServeCommand.FLAGS.validate(serve, line));
    assertEquals("--pool-size -1 is invalid: expected >= 0 (0 = none)", e.getMessage());
    line.parseArgs("--http-host", " ");
    e = assertThrows(ParameterException.class, () -> ServeCommand.FLAGS.validate(serve, line));
    assertEquals(
        "--http-host ' ' is invalid: expected " + VerticleOptions.HTTP_HOST.range(null),
        e.getMessage());
  }

  @Test
  void aFieldWithoutItsFlagIsFound() {
    FlagFields<Dummy> table =
        FlagFields.of(
            Dummy.class,
            OptionFields.of(
                field(
                    "noSuchFlag", OptionKind.INT, 1, (Dummy c) -> 1, (Dummy c, Integer v) -> {})));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> table.requireFlagsOf(new CommandLine(new Dummy()).getCommandSpec()));
    assertEquals("dummy has no flag --no-such-flag", e.getMessage());
  }

  @Command(name = "dummy", defaultValueProvider = FlagFields.Defaults.class)
  static final class Dummy {
    @Option(names = "--some-flag")
    int someFlag;
  }

  private static void assertDefaults(CommandSpec spec, Map<String, String> expected) {
    expected.forEach(
        (flag, value) ->
            assertEquals(value, spec.findOption(flag).defaultValueString(), flag + " default"));
  }
}
