#!/usr/bin/env bash
# Peers, side by side, on loopback in one run: iperf3 with as many TCP streams as VTE has connections, UCX
# ucx_perftest put_bw and tag_bw over tcp, VTE's two-process `vte bench` (4 MiB WRITEs); then UCX tag_bw over
# shared memory (posix, sysv, cma) beside VTE's same-host rail. The runs are alternated, ROUNDS times each (one of
# every peer per round, so a change of load weighs on all alike), and the table gives each peer's median with
# its min-max and VTE's ratio of medians. UCX has no time limit: each test's iteration count is set from a short
# probe so that it runs about SECONDS.
#
# Usage: modules/bench/src/main/scripts/compare-peers.sh [SECONDS] [ROUNDS]   (default 10 s per measurement, 3 rounds)
# Runs inside a private network namespace holding only `lo` (unshare -n) when it can, else bound to 127.0.0.1.
# Installs iperf3 and ucx-utils with apt-get when missing. Uses modules/cli/target/vte.jar (or $VTE_JAR);
# build it first with: mvn -B -ntp -pl modules/cli -am install -DskipTests
set -euo pipefail

seconds="${1:-10}"
rounds="${2:-3}"
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]] || { echo "compare-peers: SECONDS must be a whole number >= 1, got '$seconds'" >&2; exit 2; }
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 1 ]] || { echo "compare-peers: ROUNDS must be a whole number >= 1, got '$rounds'" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../.." && pwd)"
jar="${VTE_JAR:-$root/modules/cli/target/vte.jar}"
work="$(mktemp -d)"

# Servers are started inside $(...) subshells, so their process ids go to a file for the exit trap.
cleanup() {
  if [[ -f "$work/pids" ]]; then
    while read -r p; do kill "$p" 2>/dev/null || true; done <"$work/pids"
  fi
  rm -rf "$work"
}

# Starts a server in the background and records its id.
background() {
  "$@" &
  echo $! >>"$work/pids"
  last_pid=$!
}

# Stops a server this script started and waits for it.
stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

die() {
  echo "compare-peers: $*" >&2
  exit 1
}

# Polls until a command succeeds, at most $1 tenths of a second.
wait_for() {
  local tries="$1"
  shift
  for ((i = 0; i < tries; i++)); do
    if "$@" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# True when something listens on the TCP port (without connecting: a perftest server takes one connection only).
listening() {
  ss -Hltn "sport = :$1" | grep -q .
}

install_peers() {
  local missing=()
  command -v iperf3 >/dev/null || missing+=(iperf3)
  command -v ucx_perftest >/dev/null || missing+=(ucx-utils)
  if ((${#missing[@]})); then
    echo "compare-peers: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; } \
      || die "cannot install ${missing[*]} with apt-get"
  fi
}

# iperf3 with $1 parallel streams, receiver GiB/s of all together.
measure_iperf3() {
  background iperf3 -s -B 127.0.0.1 -p 15299 >/dev/null 2>&1
  local server=$last_pid
  wait_for 50 listening 15299 || die "iperf3 server did not start"
  timeout $((seconds + 30)) iperf3 -c 127.0.0.1 -B 127.0.0.1 -p 15299 -P "$1" -t "$seconds" -J >"$work/iperf3.json" \
    || die "iperf3 client failed"
  stop "$server"
  jq -r '.end.sum_received.bits_per_second / 8 / 1073741824' "$work/iperf3.json"
}

# ucx_perftest, 4 MiB messages: overall MiB/s -> GiB/s. $1 UCX_TLS, $2 test, $3 iterations, $4 warm-up, $5 port.
run_ucx() {
  background env UCX_TLS="$1" ucx_perftest -p "$5" >"$work/ucx-server.log" 2>&1
  local server=$last_pid
  wait_for 50 listening "$5" || die "ucx_perftest server did not start"
  UCX_TLS="$1" timeout $((seconds * 3 + 120)) ucx_perftest 127.0.0.1 -p "$5" -t "$2" -s 4194304 -n "$3" -w "$4" -f \
    >"$work/ucx.log" 2>&1 || die "ucx_perftest $2 ($1) failed: $(tail -3 "$work/ucx.log")"
  stop "$server"
  awk 'NF == 8 && $1 ~ /^[0-9]+$/ { mb = $6 } END { if (mb == "") exit 1; print mb / 1024 }' "$work/ucx.log" \
    || die "no result line in ucx_perftest $2 ($1) output"
}

# The iteration count that makes a UCX test run about $seconds: a 5-iteration probe gives the rate.
# $1 UCX_TLS, $2 test, $3 port.
ucx_iterations() {
  local gibs
  gibs="$(run_ucx "$1" "$2" 5 1 "$3")" || exit 1
  awk -v g="$gibs" -v s="$seconds" 'BEGIN { n = int(g * 1024 / 4 * s); if (n < 5) n = 5; if (n > 1000000) n = 1000000; print n }'
}

# vte bench target + initiator, two processes, 4 MiB WRITEs; $1 "tcp" or "shm" (the target's buffer in shared
# memory: the same-host rail). Echoes GiB/s and keeps the JSON in $work/vte-$1.json.
measure_vte() {
  [[ -f "$jar" ]] || die "no $jar: build it with mvn -B -ntp -pl modules/cli -am install -DskipTests"
  local shm=()
  [[ "$1" == shm ]] && shm=(--shared-memory)
  background java -Xmx256m -XX:MaxDirectMemorySize=1g -jar "$jar" bench target "${shm[@]}" --handshake-timeout 30 --json >"$work/target.json" 2>"$work/target.err"
  local server=$last_pid
  wait_for 600 grep -q server_name "$work/target.json" || die "vte bench target did not start: $(tail -3 "$work/target.err")"
  local name
  name="$(jq -r .server_name "$work/target.json")"
  timeout $((seconds + 120)) java -Xmx256m -XX:MaxDirectMemorySize=1g -jar "$jar" bench initiator --target "$name" \
    --handshake-timeout 30 --operation write --block-size 4194304 --duration "$seconds" --json --no-progress >"$work/vte-$1.json" 2>"$work/vte.err" \
    || die "vte bench initiator ($1) failed: $(grep -v WARN "$work/vte.err" | tail -3; cat "$work/vte-$1.json")"
  stop "$server"
  if [[ "$1" == shm ]] && [[ "$(jq -r '.rail_bytes.same_host > 0 and .rail_bytes.network == 0' "$work/vte-$1.json")" != true ]]; then
    die "the same-host run did not take the same-host rail alone: $(jq -c .rail_bytes "$work/vte-$1.json")"
  fi
  jq -r .throughput_gib_s "$work/vte-$1.json"
}

# Runs a measurement ($2...) and appends its result to the file of row $1; a failed one ends the script (its
# message is printed already: die in a command substitution ends only the substitution's subshell).
record() {
  local value
  value="$("${@:2}")" || exit 1
  [[ -n "$value" ]] || die "$2 gave no figure"
  echo "$value" >>"$work/row-$1"
}

# "median min max" of a row's measurements.
stats() {
  sort -g "$work/row-$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}

run_all() {
  trap cleanup EXIT
  local where="$1"
  echo "compare-peers: $rounds rounds of $seconds s per measurement, alternated, loopback ($where)" >&2
  local streams put_n tag_n sm_n
  put_n="$(ucx_iterations tcp ucp_put_bw 13337)" || exit 1
  tag_n="$(ucx_iterations tcp tag_bw 13338)" || exit 1
  sm_n="$(ucx_iterations sm,self tag_bw 13339)" || exit 1
  for ((r = 1; r <= rounds; r++)); do
    echo "compare-peers: round $r of $rounds" >&2
    record vte measure_vte tcp
    # as many TCP streams as the engine's connections: one QP per device and owner
    streams="$(jq -r '.devices * .workers' "$work/vte-tcp.json")"
    record iperf3 measure_iperf3 "$streams"
    record ucx_put run_ucx tcp ucp_put_bw "$put_n" $((put_n / 10 + 1)) 13337
    record ucx_tag run_ucx tcp tag_bw "$tag_n" $((tag_n / 10 + 1)) 13338
    record vte_shm measure_vte shm
    record ucx_sm run_ucx sm,self tag_bw "$sm_n" $((sm_n / 10 + 1)) 13339
  done
  local header="peer (loopback, $where), $rounds alternated runs"
  printf '\n%-52s %10s %17s %10s\n' "$header" "median" "min-max GiB/s" "VTE ratio"
  printf '%-52s %10s %17s %10s\n' "----------------------------------------------------" "----------" "-----------------" "----------"
  row() {
    local ref="$3"
    read -r m lo hi <<<"$(stats "$2")"
    read -r v _ _ <<<"$(stats "$ref")"
    awk -v n="$1" -v m="$m" -v lo="$lo" -v hi="$hi" -v v="$v" \
      'BEGIN { printf "%-52s %10.3f %8.3f-%-8.3f %10s\n", n, m, lo, hi, (m > 0 ? sprintf("%.2fx", v / m) : "-") }'
  }
  row "VTE bench target+initiator, 4 MiB WRITE, tcp" vte vte
  row "iperf3, $streams TCP streams (VTE's connections)" iperf3 vte
  row "UCX ucp_put_bw tcp, 4 MiB (-n $put_n)" ucx_put vte
  row "UCX tag_bw tcp, 4 MiB (-n $tag_n)" ucx_tag vte
  row "VTE same-host rail, 4 MiB WRITE" vte_shm vte_shm
  row "UCX tag_bw sm (posix, sysv, cma), 4 MiB (-n $sm_n)" ucx_sm vte_shm
  echo
  echo "VTE JSON (last tcp run): $(cat "$work/vte-tcp.json")"
  echo "VTE JSON (last same-host run): $(cat "$work/vte-shm.json")"
}

if [[ "${VTE_PEERS_INNER:-}" == 1 ]]; then
  ip link set lo up
  run_all "private netns, lo only"
  exit 0
fi
install_peers
command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
if [[ "$(id -u)" == 0 ]] && unshare -n true 2>/dev/null; then
  exec env VTE_PEERS_INNER=1 unshare -n "$0" "$seconds" "$rounds"
fi
run_all "127.0.0.1"
