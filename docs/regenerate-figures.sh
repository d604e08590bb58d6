#!/usr/bin/env bash
# Reruns the benchmarks behind docs/performance.md on this machine and rewrites the page's tables (and
# docs/scale.png); everything outside the page's figures markers stays as it is.
#
#   docs/regenerate-figures.sh            # the page's settings: about five minutes
#   docs/regenerate-figures.sh --quick    # one-second runs that check the script works; their figures mean nothing
#   docs/regenerate-figures.sh --page FILE  # rewrite another copy of the page
#
# VTE_CLASSPATH, when set, is the class path to run instead of building modules/cli/target/vte.jar.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
page="$root/docs/performance.md"
options=()
while (($#)); do
  case "$1" in
    --page) page="$2"; shift 2 ;;
    --quick) options+=("--quick"); shift ;;
    *) echo "usage: $0 [--quick] [--page FILE]" >&2; exit 2 ;;
  esac
done
classpath="${VTE_CLASSPATH:-}"
if [[ -z "$classpath" ]]; then
  "$root/vte" --version >/dev/null # builds the CLI jar when it is missing or older than a source
  classpath="$root/modules/cli/target/vte.jar"
fi
page="$(realpath "$page")"
cd "$root" # the page shows the scale run's --out relative to the root
exec java -Xmx256m -cp "$classpath" io.vte.cli.figures.RegenerateFigures "$page" --work target/figures "${options[@]}"
