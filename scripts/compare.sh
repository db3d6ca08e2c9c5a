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
# Why it works this way: the machine is shared and noisy, so every stage's benchmark binary is built
# first and then the stages run interleaved, round by round, in a rotating order: drift hits every stage
# alike, and benchstat gets one sample per stage per round. Besides time, bytes and allocations,
# ListByRole and ServeHTTP report the garbage collections per request (gc-cycles/op).
source "$(dirname "$0")/lib.sh"

# The million-user data set and the chunks' threshold are set by the
# environment; the command that a result records says so, so that it can be
# run again as it was.
for v in USERPERF_PARALLEL_MIN USERPERF_MILLION; do
  [ -z "${!v:-}" ] || command="$v=$(printf %q "${!v}") $command"
done
rounds=10 benchtime=150ms bench='^Benchmark(ListByRole|ServeHTTP|Write|Build)$' picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --thorough) rounds=20 benchtime=500ms ;;
    --rounds|--benchtime|--bench) printf -v "${1#--}" %s "$2"; shift ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
[[ "$rounds" =~ ^[0-9]+$ ]] && [ "$rounds" -ge 6 ] ||
  die "--rounds $rounds: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more"
[ ${#picked[@]} -gt 0 ] || { list=$(ask_stages list); mapfile -t picked <<< "$list"; }
stage_dirs "${picked[@]}"

new_run compare
header=$(machine_info; echo "compare-settings: rounds=$rounds, benchtime=$benchtime, bench=$bench")
echo "== building ${#picked[@]} benchmark binaries"
build_bench "${dirs[@]}"
for s in machine "${picked[@]}"; do echo "$header" > "$out/$s.txt"; done

echo "== $rounds rounds x ${#picked[@]} stages, -benchtime $benchtime, interleaved"
n=${#picked[@]}
for ((round = 1; round <= rounds; round++)); do
  for ((k = 0; k < n; k++)); do
    i=$(((round - 1 + k) % n)) # rotate who goes first
    run_bench "${dirs[$i]}" "$bench" "$benchtime" "$out/${picked[$i]}.txt"
  done
done
keep_run

# One column per stage, the first as the base; -ignore pkg puts the stages, which are different
# packages, into the same rows. The floor gets a table of its own: its nanoseconds in the same
# rows would make benchstat print every stage's time in nanoseconds too.
args=() last=
for s in "${picked[@]}"; do
  [ "$s" = floor ] || args+=("$s=$out/$s.txt") last=$s
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
echo
echo "measured on: $(measured_on "$out/machine.txt")"
echo "results: $out (benchstat.txt, one .txt per stage); charts and tables: ./scripts/report.sh"
