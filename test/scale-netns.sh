#!/usr/bin/env bash
# The scale benchmark with every host a process in its own network namespace (root only).
#
#   test/scale-netns.sh [vte scale options...]      e.g. --hosts 8,16,32 --out scale-netns
#
# Makes max(--hosts) hosts with 2 rail NICs each (test/hosts.sh up, prefix VTE_NETNS_PREFIX, default
# vte-scale), starts etcd in the service namespace on 198.19.0.254:2379, runs
# `vte scale --netns PREFIX --metadata etcd://198.19.0.254:2379 ...` there at nice 19 (each host's JVM
# inherits it), then removes the namespaces and etcd. The CLI jar is VTE_JAR (default
# modules/cli/target/vte.jar, built by `./vte` or mvn install); every host's JVM runs from it, so it must not be
# rebuilt while this runs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="${VTE_JAR:-$here/../modules/cli/target/vte.jar}"
[ -f "$jar" ] || { echo "scale-netns.sh: no CLI jar at $jar: run ./vte --help (it builds it) first" >&2; exit 1; }
export VTE_NETNS_PREFIX="${VTE_NETNS_PREFIX:-vte-scale}"
P="$VTE_NETNS_PREFIX"
hosts=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" != --hosts ] || hosts="${args[$((i + 1))]}"
done
[ -n "$hosts" ] || { hosts=8,16,32; args+=(--hosts "$hosts"); }
max=$(tr ',' '\n' <<<"$hosts" | sort -n | tail -1)
data=$(mktemp -d)
cleanup() {
  [ -z "${etcd_pid:-}" ] || kill "$etcd_pid" 2>/dev/null || true
  bash "$here/hosts.sh" down
  rm -rf "$data"
}
trap cleanup EXIT
bash "$here/hosts.sh" up "$max" 2 >/dev/null
ip netns exec "$P-svc" nice -n 19 etcd --name scale --data-dir "$data" \
  --listen-client-urls http://198.19.0.254:2379 --advertise-client-urls http://198.19.0.254:2379 \
  --listen-peer-urls http://198.19.0.254:2380 --initial-advertise-peer-urls http://198.19.0.254:2380 \
  --initial-cluster scale=http://198.19.0.254:2380 >"$data/etcd.log" 2>&1 &
etcd_pid=$!
for _ in $(seq 100); do
  ip netns exec "$P-svc" bash -c 'echo > /dev/tcp/198.19.0.254/2379' 2>/dev/null && break
  sleep 0.2
done
ip netns exec "$P-svc" nice -n 19 java -Xmx256m -jar "$jar" scale --netns "$P" \
  --metadata etcd://198.19.0.254:2379 "${args[@]}"
