#!/usr/bin/env bash
# Side by side on this host's loopback: Mooncake's TCP transport (transfer_engine_bench, P2P handshake; by
# default a connection per request, and with MC_TCP_ENABLE_CONNECTION_POOL=1 persistent lanes) beside VTE's
# two-process bench (vte bench target / vte bench initiator, one device). 4 MiB and 64 KiB blocks, WRITE and
# READ (VTE verifies what it reads). Runs alternate: each run measures every row of every system once, in turn.
# Prints medians over the runs with their spread (min..max), in GB/s (10^9 bytes per second), and VTE's ratio
# to each Mooncake column.
#
#   test/compare-mooncake.sh [-n RUNS] [-d SECONDS]      (defaults: 3 runs of 5 s per row)
#
# Mooncake's binaries come from test/mooncake/build-mooncake.sh (built once per snapshot, then cached).
# Throughput on a shared, loaded machine is noisy: compare ratios within one run of this script.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 duration=5
while getopts "n:d:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    d) duration="$OPTARG" ;;
    *) echo "usage: $0 [-n RUNS] [-d SECONDS]" >&2; exit 2 ;;
  esac
done

cache="$(test/mooncake/build-mooncake.sh | tail -1)"
export LD_LIBRARY_PATH="$cache/lib" GLOG_logtostderr=1 MC_FORCE_TCP=1
bench="$cache/bin/transfer_engine_bench"
buffer=$((256 << 20))
work="$(mktemp -d)"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# await_line FILE REGEX SECONDS: prints the first line of FILE matching REGEX, waiting for it.
await_line() {
  local i line
  for ((i = 0; i < $3 * 10; i++)); do
    line="$(grep -m1 -E "$2" "$1" 2>/dev/null || true)"
    if [ -n "$line" ]; then echo "$line"; return 0; fi
    sleep 0.1
  done
  echo "compare-mooncake: no line matching '$2' in $1 within $3 s:" >&2
  tail -20 "$1" >&2
  return 1
}

# The two start_ functions set $mc / $vt; they run in this shell (not in $(...)) so that $pids keeps the targets.
start_mooncake_target() {
  "$bench" --mode=target --protocol=tcp --metadata_server=P2PHANDSHAKE --local_server_name=127.0.0.1 \
    --buffer_size="$buffer" >"$work/mc-target.log" 2>&1 &
  pids+=("$!")
  mc="$(await_line "$work/mc-target.log" 'listening on [0-9.]+:[0-9]+' 30 | grep -oE '[0-9.]+:[0-9]+$')"
  # The listener is up before the buffer is registered.
  sleep 1
}

start_vte_target() {
  ./vte bench target --devices 1 --host 127.0.0.1 --buffer-size 256M --json >"$work/vte-target.log" 2>&1 &
  pids+=("$!")
  vt="$(await_line "$work/vte-target.log" '"server_name"' 120 | sed -E 's/.*"server_name":"([^"]+)".*/\1/')"
}

# mooncake_row SERVER OP BLOCK POOL(0|1): prints GB/s.
mooncake_row() {
  local batch=$(( $3 >= (1 << 20) ? 8 : 128 ))
  local out
  out="$(env MC_TCP_ENABLE_CONNECTION_POOL="$4" "$bench" --mode=initiator --protocol=tcp \
    --metadata_server=P2PHANDSHAKE --local_server_name=127.0.0.1 --segment_id="$1" --operation="$2" \
    --block_size="$3" --batch_size="$batch" --threads=2 --buffer_size="$buffer" --duration="$duration" \
    --report_unit=GB 2>&1)" || { echo "compare-mooncake: Mooncake initiator failed:" >&2; tail -5 <<<"$out" >&2; echo nan; return; }
  grep -oE 'throughput [0-9.]+ GB/s' <<<"$out" | tail -1 | awk '{print $2}'
}

# vte_row SERVER OP BLOCK: prints GB/s. A second try when the first fails to start (on a loaded machine the
# initiator's first GetSegment can miss its deadline while its JVM warms up).
vte_row() {
  local out try
  for try in 1 2; do
    if out="$(./vte bench initiator --devices 1 --target "$1" --operation "$2" --block-size "$3" \
      --duration "$duration" --json --no-progress 2>"$work/vte-initiator.err")"; then
      sed -E 's/.*"throughput_gib_s":([0-9.]+).*/\1/' <<<"$out" | awk '{printf "%.3f\n", $1 * 1.073741824}'
      return
    fi
    echo "compare-mooncake: VTE initiator failed (try $try):" >&2; tail -3 "$work/vte-initiator.err" >&2
  done
  echo nan
}

rows=("write 4194304 4 MiB WRITE" "write 65536 64 KiB WRITE" "read 4194304 4 MiB READ" "read 65536 64 KiB READ")
declare -A results
./vte --help >/dev/null # builds the CLI once, before anything is timed
for ((run = 1; run <= runs; run++)); do
  echo "compare-mooncake: run $run of $runs" >&2
  start_mooncake_target
  start_vte_target
  for row in "${rows[@]}"; do
    read -r op block _ <<<"$row"
    results["$row|default"]+="$(mooncake_row "$mc" "$op" "$block" 0) "
    results["$row|pool"]+="$(mooncake_row "$mc" "$op" "$block" 1) "
    results["$row|vte"]+="$(vte_row "$vt" "$op" "$block") "
  done
  cleanup_pids=("${pids[@]}")
  for p in "${cleanup_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=()
done

# stats "v1 v2 ...": prints "median min..max" over the runs that measured, and how many failed ("nan").
stats() {
  tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '
    $1 == "nan" { failed++; next } { v[++n] = $1 }
    END {
      if (n == 0) { printf "- failed-%d\n", failed; exit }
      m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.2f %.2f..%.2f%s\n", m, v[1], v[n], failed ? ",failed-" failed : "" }'
}

echo
echo "Loopback, $(nproc) cores, $runs alternated runs of ${duration}s per row; GB/s, median (min..max)."
echo "Mooncake: transfer_engine_bench, TCP, P2P handshake, 2 threads; VTE: vte bench, one device, READs verified."
echo
echo "| block, op | Mooncake default | Mooncake with connection pool | VTE | VTE / default | VTE / pool |"
echo "| --- | --- | --- | --- | --- | --- |"
for row in "${rows[@]}"; do
  read -r _ _ label <<<"$row"
  read -r dm dspread <<<"$(stats "${results[$row|default]}")"
  read -r pm pspread <<<"$(stats "${results[$row|pool]}")"
  read -r vm vspread <<<"$(stats "${results[$row|vte]}")"
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }'; }
  echo "| $label | $dm ($dspread) | $pm ($pspread) | $vm ($vspread) | $(ratio "$vm" "$dm") | $(ratio "$vm" "$pm") |"
done
