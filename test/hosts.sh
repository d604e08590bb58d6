#!/usr/bin/env bash
# Hosts as network namespaces, wired like a rail-optimized RDMA fabric, for tests and for use by hand.
#
#   hosts.sh check                 can namespaces be made here? exit 0, or 1 with the reason on stderr
#   hosts.sh up N K                N hosts with K rail NICs each (removes any earlier set first)
#   hosts.sh down                  removes every namespace of the set (and kills what still runs in them)
#   hosts.sh show                  one line per namespace: ns=NS host=H|svc|fabric mgmt=IFACE:IP nic<i>=IFACE:IP ...
#                                  (what `up` prints at the end)
#   hosts.sh link H I up|down      sets host H's rail NIC I up or down, inside its namespace
#   hosts.sh blackhole H P on|off  host H's routes to every address of host P become (or stop being) blackholes
#   hosts.sh shape H I RATE|off    a tbf qdisc on host H's rail NIC I (egress), e.g. RATE=80mbit
#   hosts.sh exec H CMD...         runs CMD inside host H's namespace (H may be "svc")
#
# Layout (prefix P, default "vte-netns", from VTE_NETNS_PREFIX):
#   P-fabric   the switches: one Linux bridge per rail, vnbr<i> (STP off, bridge netfilter off), and the management
#              bridge vnbrm; the fabric routes between rails through 198.18.<i>.254 on each rail bridge, like the
#              spine of a rail-optimized fabric. Nothing touches the root namespace's networking.
#   P-h<h>     host h: rail NIC i is veth vnh<h>n<i> = 198.18.<i>.<h+1>/24 (its other end, vnf<h>n<i>, is a port
#              of vnbr<i>), and a management NIC vnh<h>m = 198.19.0.<h+1>/24 on vnbrm for the control plane
#              (handshake, etcd), as RDMA clusters keep it on a front-end network apart from the rails.
#   P-svc      services (etcd): only a management NIC vnsm = 198.19.0.254/24.
# What a host sends from its rail-i address leaves by NIC i, as from an RDMA NIC's own port (source routing: rule
# "from 198.18.<i>.<h+1> lookup 100+i", whose table sends the rail's subnet direct and the rest via the spine, and
# an "unreachable" rule behind it so a NIC that is down fails its sends at once instead of leaking onto another).
# So setting NIC i down cuts exactly the paths that use it, as a port going down on hardware does.
set -euo pipefail

P="${VTE_NETNS_PREFIX:-vte-netns}"
FABRIC="$P-fabric"
SVC="$P-svc"
MGMT_NET=198.19.0
SVC_IP="$MGMT_NET.254"

die() { echo "hosts.sh: $*" >&2; exit 1; }
host_ns() { if [ "$1" = svc ]; then echo "$SVC"; else echo "$P-h$1"; fi; }
rail_ip() { echo "198.18.$2.$(($1 + 1))"; } # host nic
mgmt_ip() { echo "$MGMT_NET.$(($1 + 1))"; }
our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$P-(fabric|svc|h[0-9]+)$" || true; }
sysctl_ns() { ip netns exec "$1" sysctl -q -w "$2" >/dev/null; }

check() {
  [ "$(id -u)" -eq 0 ] || die "network namespaces need root (uid $(id -u))"
  command -v ip >/dev/null 2>&1 || die "no 'ip' command (Debian package iproute2)"
  command -v tc >/dev/null 2>&1 || die "no 'tc' command (Debian package iproute2)"
  local probe="$P-probe" out
  ip netns del "$probe" 2>/dev/null || true
  out=$(ip netns add "$probe" 2>&1) || die "cannot create a network namespace: $out"
  out=$( { ip -n "$probe" link add vnprobe0 type veth peer name vnprobe1 && ip -n "$probe" link add vnprobebr type bridge; } 2>&1) \
    || { ip netns del "$probe"; die "cannot create veth/bridge interfaces in a namespace: $out"; }
  ip netns del "$probe"
}

down() {
  local ns pid
  for ns in $(our_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -9 "$pid" 2>/dev/null || true
    done
  done
  for ns in $(our_namespaces); do
    ip netns del "$ns"
  done
}

# Adds veth HOST_IF (in namespace NS, address ADDR/24) whose peer FABRIC_IF is a port of bridge BR.
attach() { # NS HOST_IF FABRIC_IF BR ADDR
  ip link add "$2" netns "$1" type veth peer name "$3" netns "$FABRIC"
  ip -n "$FABRIC" link set "$3" master "$4" up
  ip -n "$1" addr add "$5/24" dev "$2"
  ip -n "$1" link set "$2" up
}

# The routes of host H's NIC I in its own table (the kernel drops them when the link goes down).
rail_routes() { # H I
  local ns dev
  ns=$(host_ns "$1") dev="vnh$1n$2"
  ip -n "$ns" route replace "198.18.$2.0/24" dev "$dev" src "$(rail_ip "$1" "$2")" table $((100 + $2))
  ip -n "$ns" route replace 198.18.0.0/15 via "198.18.$2.254" dev "$dev" table $((100 + $2))
}

new_ns() { # NS
  ip netns add "$1"
  ip -n "$1" link set lo up
}

show() {
  local h i line
  for ns in $(our_namespaces); do
    case "$ns" in
      "$SVC") echo "ns=$ns host=svc mgmt=vnsm:$SVC_IP" ;;
      "$FABRIC") echo "ns=$ns host=fabric" ;;
      *)
        h="${ns##*-h}"
        line="ns=$ns host=$h mgmt=vnh${h}m:$(mgmt_ip "$h")"
        for i in $(ip -n "$ns" -o link show | grep -oE "vnh${h}n[0-9]+" | sed "s/vnh${h}n//" | sort -n); do
          line="$line nic$i=vnh${h}n$i:$(rail_ip "$h" "$i")"
        done
        echo "$line"
        ;;
    esac
  done | sort -t= -k3
}

# Proves forwarding: a TCP connect to a closed port on each peer's address is refused (an RST came back).
verify() { # N K
  local h i peer ip out
  for ((h = 0; h < $1; h++)); do
    peer=$(((h + 1) % $1))
    for ((i = 0; i <= $2; i++)); do
      if [ "$i" -eq "$2" ]; then ip=$(mgmt_ip "$peer"); else ip=$(rail_ip "$peer" "$i"); fi
      out=$(ip netns exec "$(host_ns "$h")" timeout 5 bash -c "echo > /dev/tcp/$ip/9" 2>&1 || true)
      [[ "$out" == *"refused"* ]] || die "host $h cannot reach $ip: ${out:-no answer within 5 s}"
    done
  done
}

up() { # N K
  local n="$1" k="$2" h i ns
  [[ "$n" =~ ^[0-9]+$ && "$n" -ge 1 && "$n" -le 200 ]] || die "N must be 1..200, not '$n'"
  [[ "$k" =~ ^[0-9]+$ && "$k" -ge 1 && "$k" -le 16 ]] || die "K must be 1..16, not '$k'"
  check
  down
  new_ns "$FABRIC"
  sysctl_ns "$FABRIC" net.ipv6.conf.all.disable_ipv6=1
  for ((i = 0; i <= k; i++)); do
    local br="vnbr$i"
    [ "$i" -lt "$k" ] || br=vnbrm
    ip -n "$FABRIC" link add "$br" type bridge stp_state 0 forward_delay 0
    # Bridged frames must not pass through iptables (where br_netfilter is loaded); absent otherwise.
    ip -n "$FABRIC" link set "$br" type bridge nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0 2>/dev/null || true
    ip -n "$FABRIC" link set "$br" up
    [ "$i" -eq "$k" ] || ip -n "$FABRIC" addr add "198.18.$i.254/24" dev "$br"
  done
  sysctl_ns "$FABRIC" net.ipv4.ip_forward=1
  sysctl_ns "$FABRIC" net.ipv4.conf.all.rp_filter=0
  sysctl_ns "$FABRIC" net.ipv4.conf.default.rp_filter=0
  for ((h = 0; h < n; h++)); do
    ns=$(host_ns "$h")
    new_ns "$ns"
    sysctl_ns "$ns" net.ipv4.conf.all.rp_filter=0
    sysctl_ns "$ns" net.ipv4.conf.default.rp_filter=0
    sysctl_ns "$ns" net.ipv4.conf.all.arp_announce=2
    for ((i = 0; i < k; i++)); do
      attach "$ns" "vnh${h}n$i" "vnf${h}n$i" "vnbr$i" "$(rail_ip "$h" "$i")"
      ip -n "$ns" rule add prio 100 from "$(rail_ip "$h" "$i")" lookup $((100 + i))
      ip -n "$ns" rule add prio 101 from "$(rail_ip "$h" "$i")" unreachable
      rail_routes "$h" "$i"
    done
    attach "$ns" "vnh${h}m" "vnf${h}m" vnbrm "$(mgmt_ip "$h")"
  done
  new_ns "$SVC"
  attach "$SVC" vnsm vnfsm vnbrm "$SVC_IP"
  verify "$n" "$k"
  show
}

nic() { echo "vnh$1n$2"; } # host nic

case "${1:-}" in
  check) check ;;
  up) [ $# -eq 3 ] || die "usage: hosts.sh up N K"; up "$2" "$3" ;;
  down) down ;;
  show) show ;;
  link)
    [[ $# -eq 4 && ("$4" == up || "$4" == down) ]] || die "usage: hosts.sh link H I up|down"
    ip -n "$(host_ns "$2")" link set "$(nic "$2" "$3")" "$4"
    [ "$4" = down ] || rail_routes "$2" "$3"
    ;;
  blackhole)
    [[ $# -eq 4 && ("$4" == on || "$4" == off) ]] || die "usage: hosts.sh blackhole H P on|off"
    ns=$(host_ns "$2")
    addrs=$(show | awk -v p="$3" '{ for (f = 1; f <= NF; f++) { split($f, kv, "="); if ($2 == "host=" p && (kv[1] == "mgmt" || kv[1] ~ /^nic/)) { sub(/^[^:]*:/, "", kv[2]); print kv[2] } } }')
    [ -n "$addrs" ] || die "no host $3"
    for a in $addrs; do
      # A rule ahead of the per-NIC tables, so it holds whatever source address a socket binds.
      ip -n "$ns" rule del prio 50 to "$a/32" blackhole 2>/dev/null || true
      [ "$4" = off ] || ip -n "$ns" rule add prio 50 to "$a/32" blackhole
    done
    ;;
  shape)
    [ $# -eq 4 ] || die "usage: hosts.sh shape H I RATE|off"
    dev=$(nic "$2" "$3")
    if [ "$4" = off ]; then
      ip netns exec "$(host_ns "$2")" tc qdisc del dev "$dev" root 2>/dev/null || true
    else
      # A burst of 64 KiB (one slice) and up to 100 ms of queue: the rate, not the bucket, sets the pace.
      ip netns exec "$(host_ns "$2")" tc qdisc replace dev "$dev" root tbf rate "$4" burst 64kb latency 100ms
    fi
    ;;
  exec)
    [ $# -ge 3 ] || die "usage: hosts.sh exec H CMD..."
    ns=$(host_ns "$2"); shift 2
    exec ip netns exec "$ns" "$@"
    ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
