#!/usr/bin/env bash
# compare.sh: the stages side by side, measured in one run on this machine.
#
#   ./scripts/compare.sh                      every stage in go.work and the floor, quick (about 5 minutes)
#   ./scripts/compare.sh --thorough           more rounds, longer benchmarks (about 25 minutes)
#   ./scripts/compare.sh stage0-linear stage1-index
#   ./scripts/compare.sh floor stage3-parallel    (floor: the same HTTP path serving pre-built bytes)
#
# Options: --rounds N (at least 6), --benchtime D (a go test -benchtime), --bench REGEXP (default: the
# shared suite, BenchmarkListByRole, BenchmarkServeHTTP, BenchmarkWrite and BenchmarkBuild; a
# stage's own benchmarks, such as stage3's BenchmarkParallel, can be picked with it).
#
# Writes results/compare/<stamp>/<stage>.txt (Go benchmark format, headed by the machine, the commit
# and this command) and benchstat.txt, and points results/compare/latest at it once every round is
# done. A benchmark that fails, panics or matches nothing stops the run with its output; so does
# Ctrl-C. Either way no binary is left behind and latest is not moved.
#
# Why it works this way: the machine is shared and noisy, so every stage's
# benchmark binary is built first and then the stages run interleaved, round
# by round, in a rotating order. Drift (another process, a warm or cold
# cache, CPU frequency) then hits every stage alike instead of the stage that
# happened to run last, and benchstat gets one sample per stage per round.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

invocation=$(command_line ./scripts/compare.sh "$@")
# The million-user data set is asked for by the environment; the command
# that a result records says so, so that it can be run again as it was.
if [ -n "${USERPERF_MILLION:-}" ]; then
  invocation="USERPERF_MILLION=$(command_line "$USERPERF_MILLION") $invocation"
fi
rounds=10 benchtime=150ms bench='^Benchmark(ListByRole|ServeHTTP|Write|Build)$' picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --thorough) rounds=20 benchtime=500ms ;;
    --rounds) rounds=$2; shift ;;
    --benchtime) benchtime=$2; shift ;;
    --bench) bench=$2; shift ;;
    -h|--help) usage "$0"; exit 0 ;;
    -*) echo "compare.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
if ! [[ "$rounds" =~ ^[0-9]+$ ]] || [ "$rounds" -lt 6 ]; then
  echo "compare.sh: --rounds $rounds: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more" >&2
  exit 2
fi
if [ ${#picked[@]} -eq 0 ]; then
  list=$(stages_and_floor)
  mapfile -t picked <<< "$list"
fi
# Every name is checked before anything is built.
dirs=$(stage_dirs "${picked[@]}") || exit 2
mapfile -t dirs <<< "$dirs"

# A folder of its own, even when another run started in the same second.
mkdir -p results/compare
until stamp=$(date -u +%Y%m%dT%H%M%SZ) && mkdir "results/compare/$stamp" 2>/dev/null; do sleep 1; done
out=results/compare/$stamp
measured=false
# On any exit the binaries go. A run stopped before its last round leaves
# nothing: half a comparison is no comparison.
cleanup() {
  rm -rf "$out/bin"
  if ! $measured; then
    rm -rf "$out"
    echo "compare.sh: stopped before the last round; no results kept" >&2
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$out/bin"
{ machine_info "$invocation"; echo "compare-settings: rounds=$rounds, benchtime=$benchtime, bench=$bench"; } > "$out/machine.txt"
start=$(date +%s)

echo "== building ${#picked[@]} benchmark binaries into $out/bin"
for k in "${!picked[@]}"; do
  s=${picked[$k]}
  go test -c -o "$out/bin/$s.test" "./${dirs[$k]}"
  # The header lines of each result file say where and how it was measured.
  cp "$out/machine.txt" "$out/$s.txt"
done

# run_once runs the benchmarks of stage number $1 once, appends their
# results to its file, and stops the script if they fail or none matched.
run_once() {
  local s=${picked[$1]} dir=${dirs[$1]} log=$out/bin/output.txt
  # Run in the package folder, as go test does.
  if ! (cd "$dir" && "$ROOT/$out/bin/$s.test" -test.run '^$' -test.bench "$bench" \
    -test.benchtime "$benchtime" -test.count 1 -test.benchmem) > "$log" 2>&1; then
    echo >&2
    cat "$log" >&2
    echo "compare.sh: the benchmarks of $s failed (output above)" >&2
    exit 1
  fi
  if ! grep -qE '^Benchmark[^[:space:]]+[[:space:]]+[0-9]+[[:space:]]' "$log"; then
    echo >&2
    echo "compare.sh: no benchmark matched $bench in $s; its benchmarks:" >&2
    "$out/bin/$s.test" -test.list '^Benchmark' >&2 || true
    exit 1
  fi
  grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$log" >> "$out/$s.txt"
}

echo "== $rounds rounds x ${#picked[@]} stages, -benchtime $benchtime, interleaved"
n=${#picked[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    i=$(((r + k) % n)) # rotate who goes first
    printf '\r   round %2d/%d  %-18s  elapsed %s ' $((r + 1)) "$rounds" "${picked[$i]}" "$(elapsed "$start")"
    run_once "$i"
  done
done
printf '\r   %d rounds done in %s%*s\n' "$rounds" "$(elapsed "$start")" 30 ''
measured=true
rm -rf "$out/bin"

# One column per stage, the first as the base; -ignore pkg puts the stages,
# which are different packages, into the same rows. The floor gets a table
# of its own: its nanoseconds in the same rows would make benchstat print
# every stage's time in nanoseconds too.
args=() last=
for s in "${picked[@]}"; do
  [ "$s" = floor ] && continue
  args+=("$s=$out/$s.txt") last=$s
done
{
  [ ${#args[@]} -eq 0 ] || go tool benchstat -ignore pkg "${args[@]}"
  if [ -f "$out/floor.txt" ] && [ -n "$last" ]; then
    echo
    echo "How far $last is from the floor (pre-built bytes through the same Echo handler):"
    go tool benchstat -ignore pkg -filter '.name:ServeHTTP' "$last=$out/$last.txt" "floor=$out/floor.txt" |
      sed -E '/^[a-z][a-z-]*: /d' # the configuration lines, which the table above has shown
  fi
} | tee "$out/benchstat.txt"
ln -sfn "$stamp" results/compare/latest
echo
echo "measured on: $(measured_on "$out/machine.txt")"
echo "results: $out (benchstat.txt, one .txt per stage); charts and tables: ./scripts/report.sh"
