#!/usr/bin/env bash
# Builds Mooncake's transfer_engine_bench, transfer_engine_bench_with_notify and transfer_engine_validator (TCP transport, P2P handshake only) from
# the Mooncake source snapshot, into a cache keyed by the snapshot's sha256, so only the first run on a machine
# pays the build (about 4 minutes on 2 cores). Installs the Debian packages the build needs when they are missing.
# Prints the cache directory (holding bin/ and lib/) as its last line of standard output; progress goes to stderr.
#
# `build-mooncake.sh --requirements` only prints what the build needs, one "header-or-program:debian-package" a
# line (./run-tests installs and checks them with the other programs).
#
# The snapshot is $VTE_MOONCAKE_SNAPSHOT, or mooncake-*-te-src.tgz in shared/peers/mooncake/ beside the project
# (looked for in each parent directory of the project). Exit 3 when there is no snapshot, 1 when the build fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# Header (or program) the build needs, and the Debian package that ships it.
requirements=(
  "cmake:cmake" "g++:g++" "make:make" "pkg-config:pkg-config"
  "/usr/include/infiniband/verbs.h:libibverbs-dev"
  "/usr/include/openssl/ssl.h:libssl-dev"
  "/usr/include/glog/logging.h:libgoogle-glog-dev"
  "/usr/include/gflags/gflags.h:libgflags-dev"
  "/usr/include/jsoncpp/json/json.h:libjsoncpp-dev"
  "/usr/include/numa.h:libnuma-dev"
  "/usr/include/yaml-cpp/yaml.h:libyaml-cpp-dev"
  "/usr/include/x86_64-linux-gnu/libunwind.h:libunwind-dev"
  "/usr/include/boost/version.hpp:libboost-dev"
  "/usr/include/asio.hpp:libasio-dev"
  "/usr/include/x86_64-linux-gnu/curl/curl.h:libcurl4-openssl-dev"
  "/usr/include/pybind11/pybind11.h:pybind11-dev"
  "/usr/lib/x86_64-linux-gnu/pkgconfig/python3.pc:libpython3-dev"
)
if [ "${1:-}" = "--requirements" ]; then printf '%s\n' "${requirements[@]}"; exit 0; fi


find_snapshot() {
  if [ -n "${VTE_MOONCAKE_SNAPSHOT:-}" ]; then echo "$VTE_MOONCAKE_SNAPSHOT"; return; fi
  local dir="$repo" f
  while [ "$dir" != "/" ]; do
    dir="$(dirname "$dir")"
    for f in "$dir"/shared/peers/mooncake/mooncake-*-te-src.tgz; do
      [ -f "$f" ] && { echo "$f"; return; }
    done
  done
}

snapshot="$(find_snapshot)"
if [ -z "$snapshot" ] || [ ! -f "$snapshot" ]; then
  echo "build-mooncake: no Mooncake snapshot (set VTE_MOONCAKE_SNAPSHOT to mooncake-*-te-src.tgz)" >&2
  exit 3
fi

hash="$(sha256sum "$snapshot" | cut -c1-64)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/vte/mooncake/$hash"
done_marker="$cache/built"
if [ -f "$done_marker" ]; then echo "$cache"; exit 0; fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # a second caller waits for the first build instead of running its own
if [ -f "$done_marker" ]; then echo "$cache"; exit 0; fi

present() { if [[ "$1" == /* ]]; then [[ -e "$1" ]]; else command -v "$1" >/dev/null 2>&1; fi; }
need=()
for req in "${requirements[@]}"; do
  present "${req%%:*}" || need+=("${req##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "build-mooncake: installing ${need[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # Wait for another installer holding dpkg's lock rather than failing at once.
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >/dev/null
fi

binaries=(transfer_engine_bench transfer_engine_bench_with_notify transfer_engine_validator)
work="$cache/work"
rm -rf "$work"
mkdir -p "$work/src"
log="$cache/build.log"
echo "build-mooncake: building $(basename "$snapshot") into $cache (log: $log)" >&2
started=$(date +%s)
{
  tar -xzf "$snapshot" -C "$work/src"
  src="$(dirname "$(find "$work/src" -maxdepth 2 -name CMakeLists.txt -path '*/CMakeLists.txt' | sort | head -1)")"
  cmake -S "$src/extern/yalantinglibs" -B "$work/ylt" -DBUILD_EXAMPLES=OFF -DBUILD_BENCHMARK=OFF \
    -DBUILD_UNIT_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix"
  cmake --build "$work/ylt" -j2
  cmake --install "$work/ylt"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DWITH_TE=ON -DWITH_STORE=OFF \
    -DWITH_STORE_RUST=OFF -DWITH_P2P_STORE=OFF -DWITH_EP=OFF -DUSE_CUDA=OFF -DUSE_ETCD=OFF -DUSE_REDIS=OFF \
    -DUSE_HTTP=OFF -DUSE_TCP=ON -DUSE_TENT=OFF -DBUILD_UNIT_TESTS=OFF -DBUILD_BENCHMARK=OFF -DBUILD_EXAMPLES=ON \
    -DCMAKE_PREFIX_PATH="$work/prefix"
  make -C "$work/build" -j2 "${binaries[@]}"
} >"$log" 2>&1 || { echo "build-mooncake: build failed, see $log" >&2; exit 1; }

mkdir -p "$cache/bin" "$cache/lib"
for b in "${binaries[@]}"; do
  cp "$(find "$work/build" -type f -name "$b" -perm -u+x | head -1)" "$cache/bin/"
done
find "$work/build" -name 'libasio.so*' -exec cp -P {} "$cache/lib/" \;
rm -rf "$work"
echo "snapshot $(basename "$snapshot") built in $(( $(date +%s) - started )) s" >"$done_marker"
echo "build-mooncake: done in $(( $(date +%s) - started )) s" >&2
echo "$cache"
