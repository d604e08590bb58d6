#!/bin/busybox sh
# PID 1 of a guest built by guests.sh: loads the modules, mounts the host's root (read-only) and the run directory
# (writable, at its host path), names the NICs by MAC, puts rxe on each rail NIC, then runs the jobs the host drops
# into <run>/g<G>/jobs/<JOB>.cmd: each in the host's root (chroot), in its own session, output to jobs/JOB/out, pid to
# jobs/JOB/pid, exit status to jobs/JOB/rc (written last).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p"; }
G=$(arg vte.guest)
K=$(arg vte.nics)
RUN=$(arg vte.run)
H=/host
GD=$RUN/g$G

fail() { echo "vte guest $G: $*" >/dev/console; echo "$*" >"$H$GD/failed" 2>/dev/null; sleep 2; poweroff -f; }

for m in $(cat /mod/order); do
  insmod "/mod/$m.ko" || { echo "insmod $m failed" >/dev/console; }
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot $H || { echo "no host root" >/dev/console; poweroff -f; }
mount -t proc proc $H/proc
mount -t sysfs sys $H/sys
mount -t devtmpfs dev $H/dev
mkdir -p $H/dev/pts $H/dev/shm
mount -t devpts devpts $H/dev/pts
mount -t tmpfs tmp $H/dev/shm
mount -t tmpfs tmp $H/tmp
mount -t tmpfs tmp $H/run
mkdir -p "$H$RUN" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 run "$H$RUN" || fail "cannot mount the run directory $RUN"
echo "vte-rxe-g$G" >/proc/sys/kernel/hostname

# NICs by MAC: 52:54:00:18:GG:II (hex) is rail NIC I (eth<I>), 52:54:00:19:... the user-mode NIC (eth<K>).
ip link set lo up
for n in /sys/class/net/*; do
  d=${n##*/}
  mac=$(cat "$n/address")
  case "$mac" in
    52:54:00:18:*) i=$((16#${mac##*:})); ip link set "$d" name "r$i" ;;
    52:54:00:19:*) ip link set "$d" name "m0" ;;
  esac
done
for n in /sys/class/net/r*; do d=${n##*/}; ip link set "$d" name "eth${d#r}"; done
[ -e /sys/class/net/m0 ] && ip link set m0 name "eth$K"
i=0
while [ $i -lt "$K" ]; do
  ip addr add "198.18.$i.$((G + 1))/24" dev "eth$i" || fail "no eth$i"
  ip link set "eth$i" up
  chroot $H rdma link add "rxe$i" type rxe netdev "eth$i" || fail "rdma link add rxe$i failed"
  i=$((i + 1))
done
if [ -e "/sys/class/net/eth$K" ]; then
  ip addr add 198.19.0.15/24 dev "eth$K"
  ip link set "eth$K" up
fi
echo "addresses=$(ip -4 -o addr show | awk '$2 ~ /^eth/ {printf "%s:%s,", $2, $4}') boot_ms=$(awk '{printf "%d", $1 * 1000}' /proc/uptime)" >"$H$GD/ready"

# The job loop: the host writes jobs/JOB/... then renames jobs/JOB.cmd into place.
cd "$H$GD/jobs"
while :; do
  for c in *.cmd; do
    [ -e "$c" ] || continue
    j=${c%.cmd}
    mv "$c" "$j/cmd.sh"
    (setsid sh -c "echo \$\$ >'$j/pid'; exec chroot $H /bin/sh -c 'cd /; . $GD/jobs/$j/cmd.sh' >'$j/out' 2>&1" </dev/null
      echo $? >"$j/rc.tmp"; mv "$j/rc.tmp" "$j/rc") &
  done
  sleep 0.3
done
