#!/usr/bin/env bash
# compare.sh: the stages side by side, measured in one run on this machine.
#
#   ./scripts/compare.sh                      every stage in go.work and the floor, quick (about 3 minutes)
#   ./scripts/compare.sh --thorough           more rounds, longer benchmarks (about 10 minutes)
#   ./scripts/compare.sh stage0-linear stage1-index
#   ./scripts/compare.sh floor stage3-parallel    (floor: the same HTTP path serving pre-built bytes)
#
# Options: --rounds N, --benchtime D (a go test -benchtime), --bench REGEXP (default: the shared
# suite, BenchmarkListByRole and BenchmarkServeHTTP; a stage's own benchmarks, such as stage3's
# BenchmarkEncode, can be picked with it).
#
# Why it works this way: the machine is shared and noisy, so every stage's
# benchmark binary is built first and then the stages run interleaved, round
# by round, in a rotating order. Drift (another process, a warm or cold
# cache, CPU frequency) then hits every stage alike instead of the stage that
# happened to run last, and benchstat gets one sample per stage per round.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

invocation="./scripts/compare.sh $*"
rounds=10 benchtime=150ms bench='^Benchmark(ListByRole|ServeHTTP)$' picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --thorough) rounds=20 benchtime=500ms ;;
    --rounds) rounds=$2; shift ;;
    --benchtime) benchtime=$2; shift ;;
    --bench) bench=$2; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
[ ${#picked[@]} -gt 0 ] || mapfile -t picked < <(stages_and_floor)
if [ "$rounds" -lt 6 ]; then
  echo "compare.sh: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more" >&2
  exit 2
fi

# package_dir maps a stage name to its package folder.
package_dir() {
  case "$1" in
    floor) echo ./common/floor ;;
    *) [ -f "$1/go.mod" ] || { echo "compare.sh: no stage $1 (no $1/go.mod)" >&2; exit 2; }; echo "./$1" ;;
  esac
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/compare/$stamp
mkdir -p "$out/bin"
machine_info "$invocation (rounds=$rounds, benchtime=$benchtime, bench=$bench)" > "$out/machine.txt"
start=$(date +%s)

echo "== building ${#picked[@]} benchmark binaries into $out/bin"
for s in "${picked[@]}"; do
  dir=$(package_dir "$s")
  go test -c -o "$out/bin/$s.test" "$dir"
  # The header lines of each result file say where and how it was measured.
  cp "$out/machine.txt" "$out/$s.txt"
done

echo "== $rounds rounds x ${#picked[@]} stages, -benchtime $benchtime, interleaved"
n=${#picked[@]}
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    s=${picked[$(((r + k) % n))]}   # rotate who goes first
    printf '\r   round %2d/%d  %-18s  elapsed %s ' $((r + 1)) "$rounds" "$s" "$(elapsed "$start")"
    # Run in the package folder, as go test does.
    (cd "$(package_dir "$s")" && "$ROOT/$out/bin/$s.test" -test.run '^$' -test.bench "$bench" \
      -test.benchtime "$benchtime" -test.count 1 -test.benchmem) |
      grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' >> "$out/$s.txt"
  done
done
printf '\r   %d rounds done in %s%*s\n' "$rounds" "$(elapsed "$start")" 30 ''
rm -rf "$out/bin"
ln -sfn "$stamp" results/compare/latest

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
      grep -vE '^(goos|goarch|cpu|machine-[a-z]+|go-version|date|commit|command):'
  fi
} | tee "$out/benchstat.txt"
echo
echo "measured on: $(grep -E '^machine-cpu|^machine-cores|^go-version|^date' "$out/machine.txt" | cut -d' ' -f2- | paste -sd ';' -)"
echo "results: $out (benchstat.txt, one .txt per stage); charts and tables: ./scripts/report.sh"
