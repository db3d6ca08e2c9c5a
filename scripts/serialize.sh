#!/usr/bin/env bash
# serialize.sh: the measurements of the serialization chapters (stages 3 and 4), in one run.
#
#   ./scripts/serialize.sh                  10 rounds, -benchtime 100ms (about 2 minutes here)
#   ./scripts/serialize.sh --print          the same, tables printed; no tracked file is changed
#   ./scripts/serialize.sh --rounds 6 --benchtime 50ms
#
# Each round measures every benchmark once, so that drift hits all alike:
#   parallel  BenchmarkParallel of stage3-parallel (chunks over encoding/json) and of stage4-append
#             (chunks over the hand-written encoder): off and on, with one request at a time and with
#             16 at once (clients=1, clients=16), on an idle machine (load idle) and while another
#             process keeps every core busy (load busy: one shell loop per core, started here for the
#             sample, stopped after it, and ended by `timeout` after 10 minutes at the latest)
#   peers     BenchmarkEncode in ./peers: stage 4's encoder against other JSON libraries
# Writes results/serialize/<stamp>/{stage3,stage4}-{idle,busy}.txt and peers.txt, then the tables,
# as generated blocks with their provenance: stage3-parallel/README.md (block parallel: stage 3's
# table) and stage4-append/README.md (block parallel: both stages' tables, one under the other, and
# block peers). With --print they are printed instead.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

invocation=$(command_line ./scripts/serialize.sh "$@")
rounds=10 benchtime=100ms print=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --benchtime) benchtime=$2; shift ;;
    --print) print=1 ;;
    -h|--help) usage "$0"; exit 0 ;;
    *) echo "serialize.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$rounds" -lt 6 ]; then
  echo "serialize.sh: benchstat needs at least 6 samples for a confidence interval; use --rounds 6 or more" >&2
  exit 2
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/serialize/$stamp
burners=()
stop_burners() {
  [ ${#burners[@]} -eq 0 ] || kill "${burners[@]}" 2> /dev/null || true
  wait "${burners[@]}" 2> /dev/null || true
  burners=()
}
cleanup() {
  stop_burners
  rm -f "$out"/*.test
}
trap cleanup EXIT
trap 'echo; echo "serialize.sh: interrupted; $out is incomplete" >&2; exit 130' INT TERM

mkdir -p "$out"
echo "== building the benchmark binaries of stage3-parallel, stage4-append and peers"
go test -c -o "$out/stage3.test" ./stage3-parallel
go test -c -o "$out/stage4.test" ./stage4-append
go test -c -o "$out/peers.test" ./peers
for file in stage3-idle stage3-busy stage4-idle stage4-busy peers; do
  { machine_info "$invocation"; echo "serialize-settings: rounds=$rounds, benchtime=$benchtime"; } > "$out/$file.txt"
done
for stage in stage3 stage4; do
  echo "load: idle" >> "$out/$stage-idle.txt"
  echo "load: busy" >> "$out/$stage-busy.txt"
done
for load in idle busy; do
  echo "encoder: encoding/json" >> "$out/stage3-$load.txt"
  echo "encoder: append" >> "$out/stage4-$load.txt"
done

# sample BINARY DIR BENCH FILE appends one run of the benchmarks BENCH of
# the test binary BINARY, run in the package folder DIR, to FILE.txt; it
# stops everything, showing the benchmark's output, if the run fails.
sample() {
  local run
  if ! run=$(cd "$2" && "$ROOT/$out/$1.test" -test.run '^$' -test.bench "$3" \
    -test.benchtime "$benchtime" -test.count 1 -test.benchmem 2>&1); then
    printf '\nserialize.sh: %s failed:\n%s\n' "$3" "$run" >&2
    exit 1
  fi
  if ! grep -q '^Benchmark' <<< "$run"; then
    printf '\nserialize.sh: no benchmark matched %s in %s\n' "$3" "$2" >&2
    exit 1
  fi
  awk '/^Benchmark/' <<< "$run" >> "$out/$4.txt"
}

start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
  printf '\r   round %2d/%d  idle, peers   elapsed %s ' "$r" "$rounds" "$(elapsed "$start")"
  sample stage3 stage3-parallel '^BenchmarkParallel$' stage3-idle
  sample stage4 stage4-append '^BenchmarkParallel$' stage4-idle
  sample peers peers '^BenchmarkEncode$' peers
  printf '\r   round %2d/%d  busy          elapsed %s ' "$r" "$rounds" "$(elapsed "$start")"
  for _ in $(seq "$(nproc)"); do
    timeout 600 bash -c 'while :; do :; done' &
    burners+=($!)
  done
  sample stage3 stage3-parallel '^BenchmarkParallel$' stage3-busy
  sample stage4 stage4-append '^BenchmarkParallel$' stage4-busy
  stop_burners
done
printf '\r   %d rounds done in %s%*s\n' "$rounds" "$(elapsed "$start")" 30 ''
ln -sfn "$stamp" results/serialize/latest

# block FILE NAME BENCHSTAT_ARGS... writes one generated block, or prints it.
block() {
  local file=$1 name=$2
  shift 2
  if [ -n "$print" ]; then
    printf '\n== %s, block %s\n' "$file" "$name"
    go run ./scripts/cmd/report block -- "$@"
  else
    go run ./scripts/cmd/report block -file "$file" -name "$name" -- "$@"
  fi
}
parallel=(-filter '.unit:(sec/op OR cores)' -row load,/matches,/clients -col /parallel)
block stage3-parallel/README.md parallel "${parallel[@]}" "$out/stage3-idle.txt" "$out/stage3-busy.txt"
block stage4-append/README.md parallel -table encoder "${parallel[@]}" "$out"/stage3-{idle,busy}.txt "$out"/stage4-{idle,busy}.txt
block stage4-append/README.md peers -filter '.unit:(sec/op OR allocs/op)' -row /matches -col /encoder "$out/peers.txt"
echo "results: $out"
