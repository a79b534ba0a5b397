#!/bin/sh
# Runs the whole test suite N times on a fresh clone, as CI would, and prints how many runs passed
# and the first line of each failure. Before each run the machine is reset (`sandbay host reset`:
# VM users, mounts, cgroups and claims no live process holds; and the emulated Macs of killed
# processes), so every run starts from a clean machine and a failure cannot come from an earlier run's leftovers.
#
#   scripts/soak-tests.sh 10          # clones this repository's HEAD (committed work only)
#   KEEP=1 scripts/soak-tests.sh 3    # keeps the clone and the logs (path printed at the end)
set -eu

n=${1:-}
case "$n" in
  '' | *[!0-9]* | 0) echo "usage: $0 N (runs, at least 1)" >&2; exit 2 ;;
esac

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/sandbay-soak-XXXXXX")
cleanup() {
  # The clone's last reset already ran; only the files remain.
  if [ "${KEEP:-}" = 1 ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

git clone --quiet "$repo" "$work/sandbay"
git -C "$work/sandbay" checkout --quiet "$(git -C "$repo" rev-parse HEAD)"
cd "$work/sandbay"
echo "soak: $n runs of npm test on a fresh clone of $(git rev-parse --short HEAD) in $work" >&2

# The first `npm test` would install the dependencies inside run 1; installed once up front instead,
# by the same script, so that every run is the same.
sh scripts/setup.sh

passed=0
i=1
while [ "$i" -le "$n" ]; do
  node_modules/.bin/node cli/bin.ts host reset >"$work/reset-$i.log" 2>&1 ||
    echo "soak: reset before run $i failed: $(head -n 1 "$work/reset-$i.log")" >&2
  node_modules/.bin/node test/support/emulated-mac/cli.ts sweep >>"$work/reset-$i.log" 2>&1 ||
    echo "soak: emulated-Mac sweep before run $i failed" >&2
  log="$work/run-$i.log"
  ls -A "$tmp" | sort >"$work/tmp-before-$i"
  if NO_COLOR=1 FORCE_COLOR=0 CI=1 npm test >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "run $i: passed"
  else
    echo "run $i: FAILED"
    # vitest: each failed test's header line, then the first line of its error.
    failures=$(awk '/^ *FAIL / { print "  " $0; while ((getline line) > 0) if (line !~ /^ *$/) { print "    " line; break } }' "$log")
    if [ -n "$failures" ]; then
      printf '%s\n' "$failures"
    else
      # Failed before the tests (typecheck, lint, format, setup): its first error line.
      printf '    %s\n' "$(grep -v nodedir "$log" | grep -m 1 -iE 'error|✖' || tail -n 1 "$log")"
    fi
  fi
  # What the run left in the temporary directory (tests remove what they create): said, not failed.
  left=$(ls -A "$tmp" | sort | comm -13 "$work/tmp-before-$i" - | grep -v '^bash_' | tr '\n' ' ')
  [ -z "$left" ] || echo "  left in $tmp by run $i: $left"
  i=$((i + 1))
done

node_modules/.bin/node cli/bin.ts host reset >"$work/reset-end.log" 2>&1 || true
echo "passed $passed of $n"
[ "$passed" -eq "$n" ]
