#!/usr/bin/env bash
# Starts etcd and three `vte serve` nodes registered in it under the segment names node-a, node-b and node-c,
# transfers to each node by its segment name (`vte links --target node-X`: a tiny READ on every rail, resolved
# through etcd), then stops the nodes with SIGTERM (each must exit 0) and stops etcd.
#
# Environment: VTE (the vte command; default: ./vte at the repository root), ETCD_PORT (default 2379),
# ETCD_PEER_PORT (default 2380). Needs etcd and etcdctl on the PATH (Debian: apt-get install -y etcd-server etcd-client).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VTE="${VTE:-$ROOT/vte}"
ETCD_PORT="${ETCD_PORT:-2379}"
ETCD_PEER_PORT="${ETCD_PEER_PORT:-2380}"
ETCD_URI="etcd://127.0.0.1:$ETCD_PORT"
NODES=(a b c)

for tool in etcd:etcd-server etcdctl:etcd-client; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    echo "run-cluster: ${tool%%:*} not found on PATH; install it: apt-get install -y ${tool##*:}" >&2
    exit 2
  fi
done

WORK="$(mktemp -d)"
declare -A PIDS=()
ETCD_PID=""

cleanup() {
  for n in "${!PIDS[@]}"; do kill -KILL "${PIDS[$n]}" 2>/dev/null || true; done
  if [[ -n "$ETCD_PID" ]]; then kill -TERM "$ETCD_PID" 2>/dev/null || true; wait "$ETCD_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

wait_for() { # description, seconds, command...
  local what="$1" secs="$2"; shift 2
  for ((i = 0; i < secs * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "run-cluster: timed out waiting for $what" >&2
  return 1
}

echo "run-cluster: starting etcd on 127.0.0.1:$ETCD_PORT"
etcd --name vte-example --data-dir "$WORK/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "vte-example=http://127.0.0.1:$ETCD_PEER_PORT" >"$WORK/etcd.log" 2>&1 &
ETCD_PID=$!
wait_for "etcd health" 30 etcdctl --endpoints "127.0.0.1:$ETCD_PORT" endpoint health

for n in "${NODES[@]}"; do
  cat >"$WORK/node-$n.json" <<JSON
{ "devices": ["${n}0@127.0.0.1", "${n}1@127.0.0.1"], "workersPerContext": 1,
  "metadataUri": "$ETCD_URI", "segmentName": "node-$n" }
JSON
  $VTE serve --config "$WORK/node-$n.json" --http-port 0 --pool-size 65536 >"$WORK/node-$n.log" 2>&1 &
  PIDS[$n]=$!
done
for n in "${NODES[@]}"; do
  wait_for "node-$n to start" 60 grep -q "vte serve: server" "$WORK/node-$n.log" || { cat "$WORK/node-$n.log" >&2; exit 1; }
  grep "vte serve: server" "$WORK/node-$n.log"
done

cat >"$WORK/client.json" <<JSON
{ "devices": ["client0@127.0.0.1"], "workersPerContext": 1, "metadataUri": "$ETCD_URI", "segmentName": "client" }
JSON
ok=0
for n in "${NODES[@]}"; do
  echo "run-cluster: transfer to segment node-$n (resolved through etcd)"
  if $VTE links --config "$WORK/client.json" --target "node-$n"; then ok=$((ok + 1)); fi
done
echo "run-cluster: $ok/${#NODES[@]} nodes reached by segment name"

stopped=0
for n in "${NODES[@]}"; do
  kill -TERM "${PIDS[$n]}"
  if wait "${PIDS[$n]}"; then stopped=$((stopped + 1)); else echo "run-cluster: node-$n exited with $?" >&2; fi
  unset "PIDS[$n]"
done
echo "run-cluster: $stopped/${#NODES[@]} nodes stopped cleanly (exit 0 after SIGTERM)"
[[ $ok -eq ${#NODES[@]} && $stopped -eq ${#NODES[@]} ]]
