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
# block peers). With --print they are printed instead. An interrupted run keeps nothing.
source "$(dirname "$0")/lib.sh"

rounds=10 benchtime=100ms print=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--benchtime) printf -v "${1#--}" %s "$2"; shift ;;
    --print) print=1 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[[ "$rounds" =~ ^[0-9]+$ ]] && [ "$rounds" -ge 6 ] ||
  die "benchstat needs at least 6 samples for a confidence interval; use --rounds 6 or more"

# stop_burners stops the busy loops: the only jobs that this script runs in the background.
stop_burners() { kill $(jobs -p) 2> /dev/null || true; wait 2> /dev/null || true; }
new_run serialize
at_exit stop_burners
echo "== building the benchmark binaries of stage3-parallel, stage4-append and peers"
build_bench stage3-parallel stage4-append peers
header=$(machine_info; echo "serialize-settings: rounds=$rounds, benchtime=$benchtime")
for load in idle busy; do
  printf '%s\nload: %s\nencoder: encoding/json\n' "$header" $load > "$out/stage3-$load.txt"
  printf '%s\nload: %s\nencoder: append\n' "$header" $load > "$out/stage4-$load.txt"
done
echo "$header" > "$out/peers.txt"

for ((round = 1; round <= rounds; round++)); do
  for load in idle busy; do
    for _ in $([ $load = idle ] || seq "$(nproc)"); do # busy: a shell loop on every core
      timeout 600 bash -c 'while :; do :; done' &
    done
    run_bench stage3-parallel '^BenchmarkParallel$' "$benchtime" "$out/stage3-$load.txt" "stage3, $load"
    run_bench stage4-append '^BenchmarkParallel$' "$benchtime" "$out/stage4-$load.txt" "stage4, $load"
    stop_burners
  done
  run_bench peers '^BenchmarkEncode$' "$benchtime" "$out/peers.txt"
done
keep_run

# block FILE NAME BENCHSTAT_ARGS... writes one generated block, or prints it.
block() {
  local into=(-file "$1" -name "$2")
  [ -z "$print" ] || { printf '\n== %s, block %s\n' "$1" "$2"; into=(); }
  go run ./scripts/cmd/report block "${into[@]}" -- "${@:3}"
}
parallel=(-filter '.unit:(sec/op OR cores)' -row load,/matches,/clients -col /parallel)
block stage3-parallel/README.md parallel "${parallel[@]}" "$out/stage3-idle.txt" "$out/stage3-busy.txt"
block stage4-append/README.md parallel -table encoder "${parallel[@]}" "$out"/stage3-{idle,busy}.txt "$out"/stage4-{idle,busy}.txt
block stage4-append/README.md peers -filter '.unit:(sec/op OR allocs/op)' -row /matches -col /encoder "$out/peers.txt"
echo "results: $out"
