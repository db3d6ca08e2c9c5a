#!/usr/bin/env bash
# profile.sh: where a stage spends its time and allocates its memory.
#
#   ./scripts/profile.sh stage0-linear                      top tables: CPU time, allocated bytes and objects
#   ./scripts/profile.sh --markdown stage0-linear           the same tables in markdown (for the chapters)
#   ./scripts/profile.sh --diff stage0-linear stage1-index  where the time moved from one stage to the next
#
# Options: --bench NAME   the benchmark to profile, an exact name with its sub-benchmarks
#                         (default BenchmarkListByRole/users=10000/matches=100)
#          --benchtime D  how long it runs, a go test -benchtime (default 3s)
#          --top N        functions per table (default 12)
#          --fresh        with --diff: profile again even if saved profiles are up to date
#
# It runs the stage's test binary once with -test.cpuprofile and -test.memprofile and keeps
# everything in results/profile/<stage>/: cpu.pprof, mem.pprof, bench.txt (the benchmark's
# result and the machine) and the binary, which go tool pprof needs to show source lines.
# The memory profile keeps Go's default sampling (one sample per 512 KiB allocated): both
# profiles come from the same run, and recording every allocation (-test.memprofilerate=1)
# would slow the allocator enough to distort the CPU profile. Sampled shares are plenty for a
# table in percent; the exact allocs/op is in bench.txt and in compare.sh's results.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bench=BenchmarkListByRole/users=10000/matches=100 benchtime=3s top=12
markdown=false diff=false fresh=false picked=() command=$(command_line ./scripts/profile.sh "$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --bench) bench=$2; shift ;;
    --benchtime) benchtime=$2; shift ;;
    --top) top=$2; shift ;;
    --markdown) markdown=true ;;
    --diff) diff=true ;;
    --fresh) fresh=true ;;
    -h|--help) usage "$0"; exit 0 ;;
    -*) echo "profile.sh: unknown option $1" >&2; exit 2 ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
want=1
$diff && want=2
if [ ${#picked[@]} -ne $want ]; then
  echo "usage: profile.sh [options] STAGE   or   profile.sh [options] --diff STAGE_A STAGE_B" >&2
  exit 2
fi
start=$(date +%s)

# progress goes to stderr, so that --markdown leaves only the tables on stdout.
progress() { echo "== $*   ($(elapsed "$start"))" >&2; }

# Every name is checked before anything is built; dir_of maps a stage's
# name to its package folder.
dirs=$(stage_dirs "${picked[@]}") || exit 2
mapfile -t dirs <<< "$dirs"
dir_of() {
  local k
  for k in "${!picked[@]}"; do
    [ "${picked[$k]}" = "$1" ] && { echo "./${dirs[$k]}"; return; }
  done
}

# anchored turns a benchmark name into the -test.bench pattern that matches it
# and nothing else: go test matches each /-separated part on its own, so
# users=10000 alone would also match users=100000.
anchored() { echo "$1" | sed 's#[^/][^/]*#^&$#g'; }

# profile runs stage $1's benchmark with both profilers into results/profile/$1.
profile() {
  local s=$1 pkg dir=results/profile/$1
  pkg=$(dir_of "$s")
  mkdir -p "$dir"
  progress "$s: building the test binary"
  go test -c -o "$dir/$s.test" "$pkg"
  progress "$s: running $bench for $benchtime with the CPU and memory profilers"
  # Run in the package folder, as go test does.
  if ! (cd "$pkg" && "$ROOT/$dir/$s.test" -test.run '^$' -test.bench "$(anchored "$bench")" \
    -test.benchtime "$benchtime" -test.benchmem \
    -test.cpuprofile "$ROOT/$dir/cpu.pprof" -test.memprofile "$ROOT/$dir/mem.pprof") > "$dir/output.txt" 2>&1; then
    cat "$dir/output.txt" >&2
    echo "profile.sh: the benchmark of $s failed" >&2
    exit 1
  fi
  if ! grep -q '^Benchmark.*/op' "$dir/output.txt"; then
    echo "profile.sh: $s has no benchmark $bench (go test -list . $pkg lists them)" >&2
    exit 1
  fi
  { machine_info "$command"; echo "profile-bench: $bench"
    grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$dir/output.txt"; } > "$dir/bench.txt"
  grep '^Benchmark' "$dir/bench.txt" | sed 's/^/   /' >&2
}

# up_to_date: stage $1 was profiled with this benchmark after its last source change.
up_to_date() {
  local dir=results/profile/$1 pkg
  pkg=$(dir_of "$1")
  [ -f "$dir/cpu.pprof" ] && [ -f "$dir/mem.pprof" ] && grep -qxF "profile-bench: $bench" "$dir/bench.txt" &&
    [ -z "$(find "$pkg" common -name '*.go' -newer "$dir/cpu.pprof" | head -1)" ]
}

# tables runs the Go part, which normalizes the profiles and prints the tables.
tables() {
  local args=(-n "$top")
  $markdown && args+=(-markdown)
  go run ./scripts/cmd/profiles "$1" "${args[@]}" "${@:2}"
}

if ! $diff; then
  s=${picked[0]} dir=results/profile/${picked[0]}
  profile "$s"
  progress "$s: top functions"
  tables top "$dir"
  # Fixed ports, one per command, so that the address to open is known
  # before the browser is and two of them can run side by side.
  open="go tool pprof -http=127.0.0.1"
  if $markdown; then
    echo
    echo "Flame graph: \`$open:8081 $dir/$s.test $dir/cpu.pprof\` after \`./scripts/profile.sh $s\`, then open http://127.0.0.1:8081."
  else
    echo "Flame graph and source view (open the address it prints; the binary gives the source lines):"
    echo "  $open:8081 $dir/$s.test $dir/cpu.pprof"
    echo "  $open:8082 -sample_index=alloc_space $dir/$s.test $dir/mem.pprof"
    echo "Who calls a function, and how much each caller spends in it:"
    echo "  go tool pprof -peek 'runtime.growslice\$' $dir/$s.test $dir/cpu.pprof"
  fi
  exit 0
fi

for s in "${picked[@]}"; do
  if ! $fresh && up_to_date "$s"; then
    progress "$s: reusing results/profile/$s (newer than its sources; --fresh profiles again)"
  else
    profile "$s"
  fi
done
a=results/profile/${picked[0]} b=results/profile/${picked[1]}
progress "${picked[0]} -> ${picked[1]}: normalizing function names and lining them up"
tables diff "$a" "$b"
echo
echo "Flame graph of the difference, names normalized as above (-normalize scales ${picked[0]} to the"
echo "same total, so that, as in the table, shares are compared rather than seconds):"
echo "  go tool pprof -http=127.0.0.1:8083 -normalize -diff_base $a/cpu.normalized.pprof $b/cpu.normalized.pprof"
