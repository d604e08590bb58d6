#!/usr/bin/env bash
# Hosts with a real kernel verbs stack: QEMU guests (TCG) running Debian's kernel with soft-RoCE (rdma_rxe) on
# virtio NICs joined into rails, for tests and for use by hand (as root, or a user who may run qemu).
#
#   guests.sh check                 can guests boot here? exit 0, or 1 with the reason on stderr
#   guests.sh prepare               fetches the kernel (apt-get download, never installed) and builds the initrd into
#                                   the cache; prints kernel=... initrd=...
#   guests.sh up N K                boots N guests with K rail NICs each (tears down an earlier set first) and waits
#                                   until each runs commands; prints one line per guest
#   guests.sh exec G [-t SECONDS] CMD...
#                                   runs CMD (sh -c) in guest G's view of the host's root, with a deadline (default
#                                   120 s); prints its output (stdout and stderr merged), exits with its status (124
#                                   when the deadline passed; the command is then killed)
#   guests.sh start G JOB CMD...    starts CMD in guest G in the background as job JOB; its output grows in
#                                   $(guests.sh dir)/g<G>/jobs/JOB/out, its status appears in .../rc, its pid in .../pid
#   guests.sh wait G JOB [SECONDS]  waits for job JOB to end, prints its output, exits with its status
#   guests.sh cable G I up|down     pulls (or plugs) guest G's NIC I from outside: QEMU monitor set_link
#   guests.sh link G I up|down      sets guest G's NIC I down or up from inside: ip link set
#   guests.sh monitor G CMD...      one QEMU monitor command for guest G
#   guests.sh dir                   the set's run directory
#   guests.sh down                  kills the set's QEMU processes and removes its run directory
#
# Guest g's rail NIC i is eth<i> = 198.18.<i>.<g+1>/24 with MAC 52:54:00:18:<g>:<i>, and rxe device rxe<i> on it;
# NIC i of every guest is on rail i: a QEMU socket link on 127.0.0.1 between two guests; with more than two guests,
# every guest's NIC i joins rail i's port of a learning switch (RailHub.java, one process for all rails). The host is reachable from a
# guest only through one more, user-mode NIC (eth<K> = 198.19.0.15/24, restricted: no way out) where
# address 198.19.0.100 forwards TCP port 2379 to the host's 127.0.0.1:$VTE_RXE_ETCD_PORT (default 2379), for an etcd server.
# The control plane (handshakes) runs over the rails.
# The host's root is shared read-only over 9p and each guest chroots into it (the host's JDK, rdma-core and built jars
# run inside) with tmpfs on /tmp, /run, /dev/shm and the run directory shared writable at its own path.
#
# Environment: VTE_RXE_OWNER_PID (up: tear the set down once that process is gone), VTE_RXE_DIR (run directory, default /tmp/vte-rxe), VTE_RXE_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/vte/rxe), VTE_RXE_PORT (first of the set's loopback ports, default 24300),
# VTE_RXE_MEM (MiB per guest, default 1536), VTE_RXE_NICE (the guests' nice value, default 0: on a machine loaded by
# other work a negative one keeps the guests' clocks, and so RC's retransmit timers, from starving), VTE_RXE_KERNEL (package, default the newest linux-image-6.1.*-amd64 apt
# offers, then any linux-image-[0-9]*-amd64).
set -euo pipefail

RUN="${VTE_RXE_DIR:-/tmp/vte-rxe}"
CACHE="${VTE_RXE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vte/rxe}"
PORT0="${VTE_RXE_PORT:-24300}"
MEM="${VTE_RXE_MEM:-1536}"
ETCD_PORT="${VTE_RXE_ETCD_PORT:-2379}"
BOOT_SECONDS="${VTE_RXE_BOOT_SECONDS:-300}"
NICE="${VTE_RXE_NICE:-0}"
# Modules in dependency order (each .ko's depends= comes before it); crc32_generic first: rxe's ICRC needs crc32.
MODULES="crc32_generic virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev virtio virtio_pci 9pnet 9pnet_virtio
netfs fscache 9p failover net_failover virtio_net ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe"

die() { echo "guests.sh: $*" >&2; exit 1; }
guest_dir() { echo "$RUN/g$1"; }
monitor_port() { echo $((PORT0 + $1)); }        # guest g's monitor
rail_port() { echo $((PORT0 + 50 + $1)); }      # rail i's link (guest 0 listens and guest 1 connects, or the hub listens)
mac() { printf '52:54:00:%s:%02x:%02x' "$1" "$2" "$3"; } # KIND (18 rail, 19 user-mode) G I

check() {
  command -v qemu-system-x86_64 >/dev/null 2>&1 || die "no qemu-system-x86_64 (Debian package qemu-system-x86)"
  [ -x /bin/busybox ] && /bin/busybox --list | grep -x insmod >/dev/null || die "no static busybox (Debian package busybox-static)"
  command -v apt-get >/dev/null 2>&1 || die "no apt-get to fetch the guest kernel with"
  command -v dpkg-deb >/dev/null 2>&1 || die "no dpkg-deb to unpack the guest kernel with"
  ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-* >/dev/null 2>&1 || die "no rxe user-space provider (Debian package ibverbs-providers)"
  command -v rdma >/dev/null 2>&1 || die "no 'rdma' command (Debian package iproute2)"
  command -v ibv_devinfo >/dev/null 2>&1 || die "no ibv_devinfo (Debian package ibverbs-utils)"
}

kernel_package() {
  if [ -n "${VTE_RXE_KERNEL:-}" ]; then echo "$VTE_RXE_KERNEL"; return; fi
  local p
  p=$(apt-cache pkgnames linux-image-6.1 2>/dev/null | grep -E '^linux-image-6\.1\.0-[0-9]+-amd64$' | sort -t- -k4,4n | tail -1)
  [ -n "$p" ] || p=$(apt-cache pkgnames linux-image- 2>/dev/null | grep -E '^linux-image-[0-9.]+-[0-9]+-amd64$' | sort -V | tail -1)
  [ -n "$p" ] || die "apt offers no linux-image-*-amd64 package (run apt-get update?)"
  echo "$p"
}

# Unpacks the kernel package into $CACHE/<package>/ and builds its initrd there; cached by package name and this
# script's contents.
prepare() {
  check
  local pkg dir stamp deb kver img
  pkg=$(kernel_package)
  dir="$CACHE/$pkg"
  stamp="$dir/initrd.$(cat "$0" "$(dirname "$0")/guest-init.sh" | sha1sum | cut -c1-12).stamp"
  if [ ! -e "$stamp" ]; then
    mkdir -p "$dir"
    deb=$(ls "$dir"/*.deb 2>/dev/null | head -1 || true)
    if [ -z "$deb" ]; then
      (cd "$dir" && apt-get download "$pkg" >/dev/null 2>"$dir/download.err") \
        || die "apt-get download $pkg failed: $(tail -1 "$dir/download.err")"
      deb=$(ls "$dir"/*.deb | head -1)
    fi
    if [ ! -e "$dir/root.done" ]; then
      rm -rf "$dir/root"
      dpkg-deb -x "$deb" "$dir/root"
      touch "$dir/root.done"
    fi
    rm -rf "$dir/initrd.work"
    build_initrd "$dir"
    rm -f "$dir"/initrd.*.stamp
    touch "$stamp"
  fi
  kver=$(ls "$dir/root/lib/modules")
  img="$dir/root/boot/vmlinuz-$kver"
  echo "kernel=$img initrd=$dir/initrd.gz"
}

build_initrd() { # DIR
  local dir="$1" work="$1/initrd.work" m f kver
  kver=$(ls "$dir/root/lib/modules")
  mkdir -p "$work"/{bin,dev,proc,sys,host,mod}
  cp /bin/busybox "$work/bin/busybox"
  for m in $MODULES; do
    f=$(find "$dir/root/lib/modules/$kver" -name "$m.ko*" | head -1)
    [ -n "$f" ] || die "$m.ko is not in the kernel package"
    case "$f" in
      *.xz) xz -dc "$f" >"$work/mod/$m.ko" ;;
      *.zst) zstd -qdc "$f" >"$work/mod/$m.ko" ;;
      *) cp "$f" "$work/mod/$m.ko" ;;
    esac
  done
  echo "$MODULES" | tr ' \n' '\n\n' | grep -v '^$' >"$work/mod/order"
  cp "$(dirname "$0")/guest-init.sh" "$work/init"
  chmod +x "$work/init"
  (cd "$work" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$dir/initrd.gz"
  rm -rf "$work"
}

qemu_pids() { cat "$RUN"/g*/qemu.pid 2>/dev/null || true; }

down() {
  local pid
  for pid in $(qemu_pids); do
    # Only a QEMU this set started (its pid file): never by name.
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "-name vte-rxe-"; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  if [ -r "$RUN/hub.pid" ]; then
    pid=$(cat "$RUN/hub.pid")
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "RailHub.java"; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  if [ -r "$RUN/watcher.pid" ] && [ "$(cat "$RUN/watcher.pid")" != "$$" ]; then kill "$(cat "$RUN/watcher.pid")" 2>/dev/null || true; fi
  rm -rf "$RUN"
}

# Tears the set down once process OWNER is gone (a test JVM killed without running its hooks).
watch_owner() { # OWNER
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec bash "$2" down' watcher "$1" "$(realpath "$0")" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$RUN/watcher.pid"
}

up() { # N K
  local n="$1" k="$2" g i paths kernel initrd gd net ports
  [ "$n" -ge 1 ] && [ "$k" -ge 1 ] || die "up N K: N and K must be at least 1"
  [ "$n" -le 40 ] || die "up N K: at most 40 guests"
  paths=$(prepare)
  kernel=${paths#kernel=}; kernel=${kernel%% *}
  initrd=${paths##*initrd=}
  down
  mkdir -p "$RUN"
  echo "$n $k" >"$RUN/shape"
  [ -z "${VTE_RXE_OWNER_PID:-}" ] || watch_owner "$VTE_RXE_OWNER_PID"
  [ "$n" -le 2 ] || start_hub "$k"
  for ((g = 0; g < n; g++)); do
    gd=$(guest_dir "$g")
    mkdir -p "$gd/jobs"
    net=()
    for ((i = 0; i < k; i++)); do
      if [ "$g" -eq 0 ] && [ "$n" -le 2 ]; then ports="listen=127.0.0.1:$(rail_port "$i")"; else ports="connect=127.0.0.1:$(rail_port "$i")"; fi
      net+=(-netdev "socket,id=n$i,$ports" -device "virtio-net-pci,netdev=n$i,mac=$(mac 18 "$g" "$i")")
    done
    net+=(-netdev "user,id=m,restrict=on,net=198.19.0.0/24,host=198.19.0.2,guestfwd=tcp:198.19.0.100:2379-cmd:/bin/busybox nc 127.0.0.1 $ETCD_PORT"
      -device "virtio-net-pci,netdev=m,mac=$(mac 19 "$g" 0)")
    nice -n "$NICE" qemu-system-x86_64 -name "vte-rxe-g$g" -accel tcg,thread=multi -cpu max -smp 1 -m "$MEM" -no-reboot \
      -kernel "$kernel" -initrd "$initrd" \
      -append "console=ttyS0 quiet panic=-1 vte.guest=$g vte.nics=$k vte.run=$RUN" \
      -fsdev local,id=r,path=/,security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=r,mount_tag=hostroot \
      -fsdev local,id=w,path="$RUN",security_model=none,multidevs=remap -device virtio-9p-pci,fsdev=w,mount_tag=run \
      "${net[@]}" \
      -monitor "tcp:127.0.0.1:$(monitor_port "$g"),server=on,wait=off" \
      -serial "file:$gd/console.log" -display none -daemonize -pidfile "$gd/qemu.pid" </dev/null >/dev/null 2>"$gd/qemu.err" \
      || die "qemu for guest $g did not start: $(cat "$gd/qemu.err") (a port of $PORT0..$((PORT0 + 50 + k)) in use? set VTE_RXE_PORT)"
    # Guest 0 listens on the rails: the second guest's connect needs it up, which -daemonize waits for.
  done
  for ((g = 0; g < n; g++)); do
    await_ready "$g"
    echo "guest=$g $(cat "$(guest_dir "$g")/ready")"
  done
}

# Starts the rails' switch for more than two guests and waits until it listens.
start_hub() { # K
  local i ports=() end=$((SECONDS + 120))
  for ((i = 0; i < $1; i++)); do ports+=("$(rail_port "$i")"); done
  setsid java -Xmx64m "$(dirname "$(realpath "$0")")/RailHub.java" "${ports[@]}" </dev/null >"$RUN/hub.log" 2>&1 &
  echo $! >"$RUN/hub.pid"
  until grep -q '^listening' "$RUN/hub.log" 2>/dev/null; do
    kill -0 "$(cat "$RUN/hub.pid")" 2>/dev/null || die "the rails' switch did not start: $(tail -3 "$RUN/hub.log")"
    [ "$SECONDS" -lt "$end" ] || die "the rails' switch did not listen within 120 s"
    sleep 0.2
  done
}

await_ready() { # G
  local gd end
  gd=$(guest_dir "$1")
  end=$((SECONDS + BOOT_SECONDS))
  until [ -s "$gd/ready" ]; do
    if [ -e "$gd/failed" ]; then die "guest $1 failed to start: $(cat "$gd/failed"); console: $gd/console.log"; fi
    local pid; pid=$(cat "$gd/qemu.pid" 2>/dev/null || true)
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then die "guest $1's QEMU ended; console: $(tail -5 "$gd/console.log" 2>/dev/null)"; fi
    [ "$SECONDS" -lt "$end" ] || die "guest $1 not ready within ${BOOT_SECONDS}s; console: $(tail -5 "$gd/console.log" 2>/dev/null)"
    sleep 0.2
  done
}

new_job() { # G JOB CMD...  (writes the job; the guest's agent picks up files named *.cmd)
  local gd="$(guest_dir "$1")" job="$2"
  shift 2
  [ -d "$gd" ] || die "no guest $1 (guests.sh up first)"
  mkdir -p "$gd/jobs/$job"
  printf '%s\n' "$*" >"$gd/jobs/$job/cmd.tmp"
  mv "$gd/jobs/$job/cmd.tmp" "$gd/jobs/$job.cmd"
}

wait_job() { # G JOB SECONDS  -> exit status of the job (124 after the deadline, when it is killed)
  local jd="$(guest_dir "$1")/jobs/$2" end=$((SECONDS + $3))
  until [ -e "$jd/rc" ]; do
    if [ "$SECONDS" -ge "$end" ]; then
      kill_job "$1" "$2"
      cat "$jd/out" 2>/dev/null || true
      echo "guests.sh: job $2 in guest $1 still running after $3 s: killed" >&2
      return 124
    fi
    sleep 0.1
  done
  cat "$jd/out"
  return "$(cat "$jd/rc")"
}

kill_job() { # G JOB
  local jd="$(guest_dir "$1")/jobs/$2"
  [ -e "$jd/rc" ] && return 0
  new_job "$1" "kill-$2-$RANDOM" "kill -9 -\$(cat '$jd/pid') 2>/dev/null; kill -9 \$(cat '$jd/pid') 2>/dev/null; true"
}

monitor() { # G CMD...
  local g="$1"
  shift
  exec 3<>"/dev/tcp/127.0.0.1/$(monitor_port "$g")" || die "no monitor for guest $g"
  printf '%s\n' "$*" >&3
  # The answer ends with no marker: read until the monitor stays quiet (never send "quit": it ends QEMU).
  while IFS= read -r -t 0.5 line <&3; do
    line=${line//$'\r'/}
    case "$line" in "QEMU "* | *"(qemu)"* | "") ;; *) echo "$line" ;; esac
  done
  exec 3>&-
}

cmd="${1:-}"
shift || true
case "$cmd" in
  check) check; prepare >/dev/null ;;
  prepare) prepare ;;
  up) [ $# -eq 2 ] || die "usage: guests.sh up N K"; up "$1" "$2" ;;
  down) down ;;
  dir) echo "$RUN" ;;
  exec)
    [ $# -ge 2 ] || die "usage: guests.sh exec G [-t SECONDS] CMD..."
    g="$1"; shift
    t=120
    if [ "$1" = -t ]; then t="$2"; shift 2; fi
    job="x$$-$RANDOM"
    new_job "$g" "$job" "$@"
    wait_job "$g" "$job" "$t" ;;
  start) [ $# -ge 3 ] || die "usage: guests.sh start G JOB CMD..."; new_job "$@" ;;
  wait) [ $# -ge 2 ] || die "usage: guests.sh wait G JOB [SECONDS]"; wait_job "$1" "$2" "${3:-120}" ;;
  kill) [ $# -eq 2 ] || die "usage: guests.sh kill G JOB"; kill_job "$1" "$2" ;;
  cable)
    [ $# -eq 3 ] || die "usage: guests.sh cable G I up|down"
    case "$3" in up) s=on ;; down) s=off ;; *) die "cable: up or down, not $3" ;; esac
    monitor "$1" set_link "n$2" "$s" ;;
  link)
    [ $# -eq 3 ] || die "usage: guests.sh link G I up|down"
    g="$1"; job="l$$-$RANDOM"
    new_job "$g" "$job" "ip link set eth$2 $3"
    wait_job "$g" "$job" 30 ;;
  monitor) [ $# -ge 2 ] || die "usage: guests.sh monitor G CMD..."; monitor "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
