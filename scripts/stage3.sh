#!/usr/bin/env bash
# stage3.sh: the measurements of stage3-parallel's chapter, in one run.
#
#   ./scripts/stage3.sh                     10 rounds, -benchtime 100ms (about 3 minutes)
#   ./scripts/stage3.sh --rounds 6 --benchtime 50ms
#
# Three tables, each round measuring every benchmark once, so that drift hits all alike:
#   steps     BenchmarkSteps: the stage's three ideas added one at a time on top of stage 2
#   peers     BenchmarkEncode in ./peers: the stage's encoder against other JSON libraries
#   parallel  BenchmarkParallel: parallel chunks off and on, with one request at a time and with
#             16 at once (clients=1, clients=16), on an idle machine (load idle) and while another
#             process keeps every core busy (load busy: one shell loop per core, started here for
#             the sample, stopped after it, and ended by `timeout` after 10 minutes at the latest)
# Writes results/stage3/<stamp>/{steps,peers,idle,busy}.txt, then the three tables, as generated
# blocks with their provenance, into stage3-parallel/README.md (blocks steps, peers and parallel).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

invocation=$(command_line ./scripts/stage3.sh "$@")
rounds=10 benchtime=100ms
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --benchtime) benchtime=$2; shift ;;
    -h|--help) usage "$0"; exit 0 ;;
    *) echo "stage3.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$rounds" -lt 6 ]; then
  echo "stage3.sh: benchstat needs at least 6 samples for a p-value; use --rounds 6 or more" >&2
  exit 2
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/stage3/$stamp
burners=()
stop_burners() {
  [ ${#burners[@]} -eq 0 ] || kill "${burners[@]}" 2> /dev/null || true
  wait "${burners[@]}" 2> /dev/null || true
  burners=()
}
cleanup() {
  stop_burners
  rm -f "$out/stage3.test" "$out/peers.test"
}
trap cleanup EXIT
trap 'echo; echo "stage3.sh: interrupted; $out is incomplete" >&2; exit 130' INT TERM

mkdir -p "$out"
echo "== building the benchmark binaries of stage3-parallel and peers"
go test -c -o "$out/stage3.test" ./stage3-parallel
go test -c -o "$out/peers.test" ./peers
for file in steps peers idle busy; do
  { machine_info "$invocation"; echo "stage3-settings: rounds=$rounds, benchtime=$benchtime"; } > "$out/$file.txt"
done
echo "load: idle" >> "$out/idle.txt"
echo "load: busy" >> "$out/busy.txt"

# sample BINARY DIR BENCH FILE appends one run of the benchmarks BENCH of
# the test binary BINARY, run in the package folder DIR, to FILE.txt; it
# stops everything, showing the benchmark's output, if the run fails.
sample() {
  local run
  if ! run=$(cd "$2" && "$ROOT/$out/$1.test" -test.run '^$' -test.bench "$3" \
    -test.benchtime "$benchtime" -test.count 1 -test.benchmem 2>&1); then
    printf '\nstage3.sh: %s failed:\n%s\n' "$3" "$run" >&2
    exit 1
  fi
  if ! grep -q '^Benchmark' <<< "$run"; then
    printf '\nstage3.sh: no benchmark matched %s in %s\n' "$3" "$2" >&2
    exit 1
  fi
  awk '/^Benchmark/' <<< "$run" >> "$out/$4.txt"
}

start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
  printf '\r   round %2d/%d  steps, peers, idle   elapsed %s ' "$r" "$rounds" "$(elapsed "$start")"
  sample stage3 stage3-parallel '^BenchmarkSteps$' steps
  sample peers peers '^BenchmarkEncode$' peers
  sample stage3 stage3-parallel '^BenchmarkParallel$' idle
  printf '\r   round %2d/%d  busy                 elapsed %s ' "$r" "$rounds" "$(elapsed "$start")"
  for _ in $(seq "$(nproc)"); do
    timeout 600 bash -c 'while :; do :; done' &
    burners+=($!)
  done
  sample stage3 stage3-parallel '^BenchmarkParallel$' busy
  stop_burners
done
printf '\r   %d rounds done in %s%*s\n' "$rounds" "$(elapsed "$start")" 30 ''
ln -sfn "$stamp" results/stage3/latest

chapter=stage3-parallel/README.md
block() { go run ./scripts/cmd/report block -file "$chapter" -name "$@"; }
block steps -- -row /matches -col /step "$out/steps.txt"
block peers -- -filter '.unit:(sec/op OR allocs/op)' -row /matches -col /encoder "$out/peers.txt"
block parallel -- -filter '.unit:sec/op' -row load,/matches,/clients -col /parallel "$out/idle.txt" "$out/busy.txt"
echo "results: $out; tables written to $chapter (blocks steps, peers, parallel)"
