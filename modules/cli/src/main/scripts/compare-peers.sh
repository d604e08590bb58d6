#!/usr/bin/env bash
# Peers, side by side: iperf3 (one TCP stream), UCX ucx_perftest put_bw and tag_bw over tcp, and VTE's
# two-process `vte bench` (4 MiB WRITEs), all on loopback in one run, then one table with VTE's ratio to each.
#
# Usage: modules/cli/src/main/scripts/compare-peers.sh [SECONDS]   (default 10 s per measurement)
# Runs inside a private network namespace holding only `lo` (unshare -n) when it can, else bound to 127.0.0.1.
# Installs iperf3 and ucx-utils with apt-get when missing. Uses modules/cli/target/vte.jar (or $VTE_JAR);
# build it first with: mvn -B -ntp -pl modules/cli -am install -DskipTests
set -euo pipefail

seconds="${1:-10}"
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

# iperf3, one stream, receiver GiB/s.
measure_iperf3() {
  background iperf3 -s -B 127.0.0.1 -p 15299 >/dev/null 2>&1
  local server=$last_pid
  wait_for 50 listening 15299 || die "iperf3 server did not start"
  timeout $((seconds + 30)) iperf3 -c 127.0.0.1 -B 127.0.0.1 -p 15299 -t "$seconds" -J >"$work/iperf3.json" \
    || die "iperf3 client failed"
  stop "$server"
  jq -r '.end.sum_received.bits_per_second / 8 / 1073741824' "$work/iperf3.json"
}

# ucx_perftest over tcp, 4 MiB messages: overall MiB/s -> GiB/s. $1 test, $2 iterations, $3 warm-up, $4 port.
measure_ucx() {
  background env UCX_TLS=tcp ucx_perftest -p "$4" >"$work/ucx-server-$1.log" 2>&1
  local server=$last_pid
  wait_for 50 listening "$4" || die "ucx_perftest server did not start"
  UCX_TLS=tcp timeout 180 ucx_perftest 127.0.0.1 -p "$4" -t "$1" -s 4194304 -n "$2" -w "$3" -f >"$work/ucx-$1.log" 2>&1 \
    || die "ucx_perftest $1 failed: $(tail -3 "$work/ucx-$1.log")"
  stop "$server"
  awk 'NF == 8 && $1 ~ /^[0-9]+$/ { mb = $6 } END { if (mb == "") exit 1; print mb / 1024 }' "$work/ucx-$1.log" \
    || die "no result line in ucx_perftest $1 output"
}

# vte bench target + initiator, two processes, 4 MiB WRITEs; echoes GiB/s and keeps the JSON.
measure_vte() {
  [[ -f "$jar" ]] || die "no $jar: build it with mvn -B -ntp -pl modules/cli -am install -DskipTests"
  background java -Xmx256m -XX:MaxDirectMemorySize=1g -jar "$jar" bench target --json >"$work/target.json" 2>"$work/target.err"
  local server=$last_pid
  wait_for 600 grep -q server_name "$work/target.json" || die "vte bench target did not start: $(tail -3 "$work/target.err")"
  local name
  name="$(jq -r .server_name "$work/target.json")"
  timeout $((seconds + 120)) java -Xmx256m -XX:MaxDirectMemorySize=1g -jar "$jar" bench initiator --target "$name" \
    --operation write --block-size 4194304 --duration "$seconds" --json --no-progress >"$work/vte.json" 2>"$work/vte.err" \
    || die "vte bench initiator failed: $(grep -v WARN "$work/vte.err" | tail -3)"
  stop "$server"
  jq -r .throughput_gib_s "$work/vte.json"
}

run_all() {
  trap cleanup EXIT
  local where="$1"
  echo "compare-peers: $seconds s per measurement, loopback ($where); this takes about $((seconds * 2 + 60)) s" >&2
  local iperf ucx_put ucx_tag vte
  iperf="$(measure_iperf3)"
  ucx_put="$(measure_ucx ucp_put_bw 200 10 13337)"
  ucx_tag="$(measure_ucx tag_bw 500 20 13338)"
  vte="$(measure_vte)"
  printf '\n%-44s %10s %12s\n' "peer (loopback, $where)" "GiB/s" "VTE ratio"
  printf '%-44s %10s %12s\n' "--------------------------------------------" "----------" "------------"
  row() { awk -v n="$1" -v g="$2" -v v="$vte" 'BEGIN { printf "%-44s %10.3f %12s\n", n, g, (g > 0 ? sprintf("%.2fx", v / g) : "-") }'; }
  row "iperf3, 1 TCP stream" "$iperf"
  row "UCX ucp_put_bw tcp, 4 MiB (-n 200)" "$ucx_put"
  row "UCX tag_bw tcp, 4 MiB (-n 500)" "$ucx_tag"
  awk -v v="$vte" 'BEGIN { printf "%-44s %10.3f %12s\n", "VTE bench target+initiator, 4 MiB WRITE", v, "1.00x" }'
  echo
  echo "VTE JSON: $(cat "$work/vte.json")"
}

if [[ "${VTE_PEERS_INNER:-}" == 1 ]]; then
  ip link set lo up
  run_all "private netns, lo only"
  exit 0
fi
install_peers
command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
if [[ "$(id -u)" == 0 ]] && unshare -n true 2>/dev/null; then
  exec env VTE_PEERS_INNER=1 unshare -n "$0" "$seconds"
fi
run_all "127.0.0.1"
