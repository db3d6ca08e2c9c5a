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
#          --fresh        with --diff: profile again even if the saved profiles measured the code as it is
#
# One go test run with both profilers leaves results/profile/<stage>/: cpu.pprof, mem.pprof,
# bench.txt (the result, the machine, the commit) and the test binary, for pprof's source view.
# The memory profile keeps Go's default sampling, which does not slow the allocator under the
# CPU profile. The tables are go tool pprof -top with the runtime folded (scripts/cmd/profiles).
source "$(dirname "$0")/lib.sh"

bench=BenchmarkListByRole/users=10000/matches=100 benchtime=3s top=12
markdown=() diff=false fresh=false picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bench|--benchtime|--top) printf -v "${1#--}" %s "$2"; shift ;;
    --markdown) markdown=(-markdown) ;;
    --diff) diff=true ;;
    --fresh) fresh=true ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
[ ${#picked[@]} -eq "$($diff && echo 2 || echo 1)" ] ||
  die "usage: profile.sh [options] STAGE   or   profile.sh [options] --diff STAGE_A STAGE_B"
stage_dirs "${picked[@]}"
start=$(date +%s)
progress() { echo "== $*   ($(elapsed "$start"))" >&2; } # on stderr: --markdown leaves only tables on stdout

# profile runs the benchmark of stage $1, in folder $2, with both profilers. Each
# part of the name is anchored: users=10000 alone would match users=100000 too.
profile() {
  local dir=results/profile/$1
  mkdir -p "$dir"
  progress "$1: running $bench for $benchtime with the CPU and memory profilers"
  if ! go test -run '^$' -bench "$(sed 's#[^/][^/]*#^&$#g' <<< "$bench")" -benchtime "$benchtime" -benchmem \
      -cpuprofile cpu.pprof -memprofile mem.pprof -outputdir "$ROOT/$dir" -o "$ROOT/$dir/$1.test" "./$2" \
      > "$dir/output.txt" 2>&1 || ! grep -q '^Benchmark.*/op' "$dir/output.txt"; then
    cat "$dir/output.txt" >&2
    echo "profile.sh: no result of $bench in $1 (go test -list . ./$2 lists the benchmarks)" >&2
    exit 1
  fi
  { machine_info; echo "profile-bench: $bench"
    grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$dir/output.txt"; } > "$dir/bench.txt"
  grep '^Benchmark' "$dir/bench.txt" | sed 's/^/   /' >&2
}

# up_to_date: stage $1's saved profiles are of this benchmark, and the
# measured code has not changed since the commit they recorded.
up_to_date() {
  local dir=results/profile/$1
  [ -f "$dir/cpu.pprof" ] && [ -f "$dir/mem.pprof" ] && grep -qxF "profile-bench: $bench" "$dir/bench.txt" &&
    ask_stages fresh "$(sed -n 's/^commit: //p' "$dir/bench.txt")" 2> /dev/null
}

a=results/profile/${picked[0]} b=results/profile/${picked[-1]}
for i in "${!picked[@]}"; do
  if $diff && ! $fresh && up_to_date "${picked[$i]}"; then
    progress "${picked[$i]}: reusing results/profile/${picked[$i]} (the code it measured has not changed; --fresh profiles again)"
  else
    profile "${picked[$i]}" "${dirs[$i]}"
  fi
done
if $diff; then
  go run ./scripts/cmd/profiles diff -n "$top" -tables cpu,bytes "${markdown[@]}" "$a" "$b"
  echo "Flame graph of the change: go tool pprof -http=127.0.0.1:8083 -normalize -diff_base $a/cpu.folded.pprof $b/cpu.folded.pprof"
else
  go run ./scripts/cmd/profiles top -n "$top" "${markdown[@]}" "$b"
  echo "Flame graph and source lines: go tool pprof -http=127.0.0.1:8081 $b/${picked[0]}.test $b/cpu.pprof"
  echo "Who calls a function, and what it costs each caller: go tool pprof -peek 'runtime.growslice\$' $b/${picked[0]}.test $b/cpu.pprof"
fi
