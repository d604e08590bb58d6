package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.cli.CliRun;
import io.vte.cli.VteMain;
import io.vte.cli.bench.sweep.Sweep;
import io.vte.cli.bench.sweep.SweepRow;
import io.vte.cli.common.ByteSize;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Bad flag values of every bench form: one clear line naming the flag and the value, exit code 2.
 */
class BenchOptionsTest {

  private static void rejects(String expected, String... args) {
    CliRun r = CliRun.of(args);
    String cmd = String.join(" ", args);
    assertEquals(2, r.exit(), cmd + " -> " + r.err());
    assertEquals(1, r.err().lines().count(), "one line for " + cmd + ": " + r.err());
    assertTrue(r.err().startsWith("vte: ") && r.err().contains(expected), cmd + " -> " + r.err());
    assertEquals("", r.out(), cmd);
  }

  @Test
  void embeddedFormRejectsBadValuesNamingThem() {
    rejects("--operation must be read or write, got 'copy'", "bench", "--operation", "copy");
    rejects("--block-size must be 1..67108864 bytes, got 0", "bench", "--block-size", "0");
    rejects("--block-size must be 1..67108864 bytes, got -3", "bench", "--size", "-3");
    rejects("--batch-size must be 1..1024, got 0", "bench", "--batch-size", "0");
    rejects("--threads must be 1..16, got 17", "bench", "--threads", "17");
    rejects("--depth must be 1..256, got 0", "bench", "--depth", "0");
    rejects("--duration must be > 0 and <= 3600, got -1.0", "bench", "--duration", "-1");
    rejects("--devices must be 1..8 or a device list, got 9", "bench", "--devices", "9");
    rejects(
        "--devices must be a count or a comma list of devices, got 'a,,b'",
        "bench",
        "--devices",
        "a,,b");
    rejects(
        "--workers-per-context must be 1..64, got 0 (engine option 'workersPerContext')",
        "bench",
        "--workers-per-context",
        "0");
    rejects("--transport must be soft or ibverbs, got 'rdma'", "bench", "--transport", "rdma");
    rejects("--transport ibverbs needs --devices as a list", "bench", "--transport", "ibverbs");
    rejects(
        "--metadata must be p2p, etcd://host:port[,host:port...] or etcds://host:port[,host:port...], got"
            + " 'redis://x'",
        "bench",
        "--metadata",
        "redis://x");
    rejects(
        "--handshake-timeout must be a positive number of seconds, got 0.0",
        "bench",
        "--handshake-timeout",
        "0");
    rejects("--slice-size must be 4096..1073741824 bytes, got 100", "bench", "--slice-size", "100");
    rejects(
        "--max-outstanding-per-qp must be 1..cqSize (4096), got 0",
        "bench",
        "--max-outstanding-per-qp",
        "0");
    rejects(
        "must be <= 512 MiB, got 4 x 8 x 1 x 67108864",
        "bench",
        "--threads",
        "4",
        "--block-size",
        "67108864");
    rejects("--sweep-sizes: '3X' is not a size", "bench", "--sweep", "--sweep-sizes", "4K,3X");
    rejects(
        "--sweep-sizes: '128M' must be 1 B .. 64M", "bench", "--sweep", "--sweep-sizes", "128M");
    rejects("Invalid value for option '--duration': 'soon'", "bench", "--duration", "soon");
    rejects(
        "--baseline cannot be combined with --inject",
        "bench",
        "--baseline",
        "--inject",
        "port-down:src0@1s");
    rejects("--baseline cannot be combined with --sweep", "bench", "--baseline", "--sweep");
    rejects(
        "--duration is the time of one run; with --sweep give the time per block size as --sweep-duration, got"
            + " --duration 3.0",
        "bench",
        "--sweep",
        "--duration",
        "3");
  }

  /**
   * The engine flags keep no limits of their own: the engine's ranges apply, and each error names
   * its flag.
   */
  @Test
  void engineFlagsTakeTheEnginesRangesAndNameTheFlag() {
    EngineFlags accepted =
        parse(
            "--workers",
            "64",
            "--slice-size",
            "1G",
            "--metadata",
            "etcds://10.0.0.1:2379",
            "--max-outstanding-per-qp",
            "4096",
            "--handshake-timeout",
            "0.05");
    accepted.validate();
    EngineOptions options = accepted.engineOptions(List.of("d0@127.0.0.1"));
    assertEquals(64, options.getWorkersPerContext());
    assertEquals(1 << 30, options.getSliceSize());
    assertEquals("etcds://10.0.0.1:2379", options.getMetadataUri());
    assertEquals(java.time.Duration.ofMillis(50), options.getHandshakeDeadline());
    assertEquals(
        new EngineOptions().setDevices(List.of("d0@127.0.0.1")),
        parse().engineOptions(List.of("d0@127.0.0.1")),
        "without flags the engine's defaults");
    Map<String, String[]> bad =
        Map.of(
            "--workers-per-context", new String[] {"--workers", "65", "got 65"},
            "--slice-size", new String[] {"--slice-size", "1536M", "got 1610612736"},
            "--max-outstanding-per-qp",
                new String[] {"--max-outstanding-per-qp", "4097", "got 4097"},
            "--metadata", new String[] {"--metadata", "etcds://", "got 'etcds://'"},
            "--transport", new String[] {"--transport", "udp", "got 'udp'"},
            "--handshake-timeout", new String[] {"--handshake-timeout", "-1", "got -1.0"});
    bad.forEach(
        (flag, args) -> {
          IllegalArgumentException e =
              assertThrows(
                  IllegalArgumentException.class, () -> parse(args[0], args[1]).validate(), flag);
          assertTrue(e.getMessage().startsWith(flag + " must be "), flag + ": " + e.getMessage());
          assertTrue(
              e.getMessage().contains(args[2]),
              "names the value (" + args[2] + "): " + e.getMessage());
        });
  }

  private static EngineFlags parse(String... args) {
    EngineFlags flags = new EngineFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }

  @Test
  void sizeFlagsTakeBinarySuffixesInAnyCaseAndNameABadValue() {
    assertEquals(4096L, ByteSize.parse("4096"));
    assertEquals(64L << 10, ByteSize.parse("64K"));
    assertEquals(64L << 10, ByteSize.parse("64kib"));
    assertEquals(1L << 20, ByteSize.parse("1M"));
    assertEquals(4L << 20, ByteSize.parse("4MiB"));
    assertEquals(1L << 30, ByteSize.parse("1g"));
    assertEquals(2L << 30, ByteSize.parse("2GiB"));
    for (String bad :
        List.of("1X", "4KB", "1.5M", "", "M", "99999999999999999999", "9000000000G")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(bad), bad);
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
    Map<String, Object> parsed = Map.of("--block-size", 1 << 20, "--slice-size", 128 << 10);
    CommandLine bench = VteMain.commandLine();
    bench.parseArgs("bench", "--block-size", "1M", "--slice-size", "128k");
    parsed.forEach(
        (flag, value) ->
            assertEquals(
                value,
                bench.getSubcommands().get("bench").getCommandSpec().findOption(flag).getValue(),
                flag));
    assertEquals(
        1L << 30,
        option(
            new String[] {"bench", "target", "--buffer-size", "1GiB"},
            "bench",
            "target",
            "--buffer-size"));
    assertEquals(
        64L << 20, option(new String[] {"serve", "--pool-size", "64M"}, "serve", "--pool-size"));
    assertEquals(
        4096,
        option(new String[] {"links", "--target", "h:1", "--bytes", "4K"}, "links", "--bytes"));
    assertEquals(
        1 << 20, option(new String[] {"verbs-bench", "--size", "1m"}, "verbs-bench", "--size"));
    rejects(
        "Invalid value for option '--block-size': '1X' is not a size like 4096, 64K, 4M or 1G",
        "bench",
        "--block-size",
        "1X");
    rejects(
        "--block-size must be 1..67108864 bytes, got 1073741824", "bench", "--block-size", "1G");
    rejects(
        "Invalid value for option '--block-size': '4G' is 4294967296 bytes, more than this flag can hold",
        "bench",
        "--block-size",
        "4G");
    rejects(
        "--buffer-size must be 4096..536870912 bytes, got 1073741824",
        "bench",
        "target",
        "--buffer-size",
        "1G");
    rejects(
        "Invalid value for option '--pool-size': 'lots' is not a size",
        "serve",
        "--pool-size",
        "lots");
    rejects(
        "--sweep-sizes: '3X' is not a size like 4096, 64K, 4M or 1G",
        "bench",
        "--sweep",
        "--sweep-sizes",
        "3X");
  }

  private static Object option(String[] args, String... path) {
    CommandLine cl = VteMain.commandLine();
    cl.parseArgs(args);
    for (int i = 0; i < path.length - 1; i++) {
      cl = cl.getSubcommands().get(path[i]);
    }
    return cl.getCommandSpec().findOption(path[path.length - 1]).getValue();
  }

  @Test
  void theOperationIsReadOrWriteInAnyCase() {
    CliRun r =
        CliRun.of(
            "bench",
            "--operation",
            "READ",
            "--duration",
            "0.3",
            "--warmup",
            "0",
            "--block-size",
            "64K",
            "--json",
            "--no-progress",
            "--handshake-timeout",
            "30");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "read", new io.vertx.core.json.JsonObject(r.out().trim()).getString("operation"), r.out());
    CliRun w =
        CliRun.of(
            "bench",
            "--operation",
            "Write",
            "--duration",
            "0.3",
            "--warmup",
            "0",
            "--block-size",
            "64K",
            "--json",
            "--no-progress",
            "--handshake-timeout",
            "30");
    assertEquals(0, w.exit(), w.err());
    assertEquals(
        "write", new io.vertx.core.json.JsonObject(w.out().trim()).getString("operation"), w.out());
  }

  @Test
  void badInjectSpecsAreOneLineNamingTheStep() {
    rejects(
        "bad --inject step 'port-down:src9@1.000s'",
        "bench",
        "--inject",
        "port-down:src0@1s,port-down:src9@1s");
    rejects(
        "no device 'src9' in this run (devices: src0, src1, dst0, dst1)",
        "bench",
        "--inject",
        "port-down:src9@1s");
    rejects(
        "bad --inject step 'boom:src0@1s': unknown kind 'boom'",
        "bench",
        "--inject",
        "boom:src0@1s");
    rejects("drop needs a fraction", "bench", "--inject", "drop:src0@1s");
    rejects(
        "--inject needs --transport soft",
        "bench",
        "--transport",
        "ibverbs",
        "--devices",
        "mlx5_0",
        "--inject",
        "port-down:mlx5_0@1s");
    rejects(
        "--inject and --sweep cannot be combined",
        "bench",
        "--sweep",
        "--inject",
        "port-down:src0@1s");
    rejects(
        "no device 'src0' in this run (devices: soft0, soft1)",
        "bench",
        "initiator",
        "--target",
        "127.0.0.1:1",
        "--devices",
        "2",
        "--inject",
        "port-down:src0@1s");
    rejects(
        "no device 'src0' in this run (devices: "
            + String.join(
                ", ",
                io.vte.api.DefaultSoftDevices.forThisHost().devices().stream()
                    .map(io.vte.api.DefaultSoftDevices.Device::name)
                    .toList())
            + ")",
        "bench",
        "initiator",
        "--target",
        "127.0.0.1:1",
        "--inject",
        "port-down:src0@1s");
    rejects("no device 'x' in this run", "bench", "target", "--inject", "port-up:x@1s");
  }

  @Test
  void twoProcessFormsRejectBadValues() {
    rejects("Missing required option: '--target=HOST:PORT|NAME'", "bench", "initiator");
    rejects(
        "--target must be host:port with --metadata p2p (a segment name needs --metadata etcd://...), got 'somewhere'",
        "bench",
        "initiator",
        "--target",
        "somewhere");
    rejects(
        "--operation must be read or write, got 'x'",
        "bench",
        "initiator",
        "--target",
        "h:1",
        "--operation",
        "x");
    rejects("--port must be 0..65535, got 70000", "bench", "target", "--port", "70000");
    rejects(
        "--buffer-size must be 4096..536870912 bytes, got 10",
        "bench",
        "target",
        "--buffer-size",
        "10");
    rejects("Unknown options: '--block-size', '4096'", "bench", "target", "--block-size", "4096");
  }

  @Test
  void sweepSizesParseWithBinarySuffixes() {
    assertEquals(
        List.of(4096, 65536, 1 << 20, 64 << 20, 512), SweepRow.parseSizes("4K, 64k,1M,64MiB,512"));
    assertEquals(
        List.of(4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20),
        SweepRow.parseSizes(Sweep.DEFAULT_SIZES));
    assertThrows(IllegalArgumentException.class, () -> SweepRow.parseSizes(""));
    assertEquals("4K", SweepRow.label(4096));
    assertEquals("64M", SweepRow.label(64 << 20));
    assertEquals("1000", SweepRow.label(1000));
  }
}
