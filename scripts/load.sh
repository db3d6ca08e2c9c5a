#!/usr/bin/env bash
# load.sh: every stage's server under HTTP load on 127.0.0.1, and the floor.
#
#   ./scripts/load.sh                        every stage in go.work and the floor (about 45 s per stage)
#   ./scripts/load.sh --quick stage0-linear floor     (2 s per test: a smoke run)
#   ./scripts/load.sh --rounds 6             six interleaved rounds: enough samples for benchstat's confidence intervals
#
# Options: --rate N (fixed-rate test, requests/s, default 100), --duration D (each test, each round,
# default 10s), --conns N (saturation test, default 32), --rounds N (default 1),
# --pin / --no-pin (server on CPU 0 and load generator on CPU 1 with taskset; default: --no-pin).
#
# For each stage: build the server, start it on a free loopback port, check that it gives the same
# bytes as the others, warm it up; then, with the stages taking turns, for role=admin (100 users)
# and role=editor (1,000 users):
#   fixed rate  (open loop):   --rate requests/s for --duration: p50, p95, p99, max, errors
#   saturated   (closed loop): --conns connections for --duration: requests/s, p50, p99
# then stop every server. The load generator (scripts/cmd/load, vegeta's library) runs on the same
# machine as the servers and takes CPU from them: compare stages with each other, measured in one
# run, not with numbers from another machine.
#
# Writes results/load/<stamp>/<stage>.txt (Go benchmark format, headed by the machine's description:
# `go tool benchstat A=results/load/latest/stage0-linear.txt B=results/load/latest/floor.txt`;
# add `-ignore date,commit,command` to compare two runs), table.md, <stage>.log (the server's
# output), and points results/load/latest at it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

command=$(command_line ./scripts/load.sh "$@")
# 100 req/s: a fixed-rate test above what a stage can serve measures the
# queue in front of it, not the stage. stage0-linear spends milliseconds of
# CPU on one role=editor request, and shares two cores with the load
# generator (and, on a developer's machine, with everything else), so the
# rate stays well below its saturated throughput: every stage sustains it.
duration=10s warmup=2s rate=100 conns=32 rounds=1 pin=no picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) duration=2s warmup=1s ;;
    --rate) rate=$2; shift ;;
    --duration) duration=$2; shift ;;
    --conns) conns=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --pin) pin=yes ;;
    --no-pin) pin=no ;;
    -h|--help) usage "$0"; exit 0 ;;
    -*) echo "load.sh: unknown option $1" >&2; exit 2 ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
if [ ${#picked[@]} -eq 0 ]; then
  list=$(stages_and_floor)
  mapfile -t picked <<< "$list"
fi
# Every name is checked before anything is built.
packages=$(stage_servers "${picked[@]}") || exit 2
mapfile -t packages <<< "$packages"

# Pinning (--pin) is off by default. Measured on this project's 2-core machine
# while other work ran on it (3 rounds of 3 s, stage0-linear and the floor,
# pinned and not): pinning made stage0-linear's saturated req/s steadier (the
# spread of its rounds, highest minus lowest over the median, 4% instead of
# 46%) but not the floor's (34% against 21%), the fixed-rate p50s spread
# about alike, and every saturated throughput fell by about half, because a
# pinned server has one core (GOMAXPROCS=1). That decides it: on one core a
# stage that spreads its work over several cores (stage3's parallel chunks)
# could not show its gain. So by default the scheduler shares both cores
# between server and load generator, and --pin is there for a learner who
# wants to see the difference.
pin_load=() server_cpus=()
if [ "$pin" = yes ]; then
  if ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
    echo "load.sh: --pin needs taskset and at least 2 CPUs" >&2
    exit 2
  fi
  pin_load=(taskset -c 1) server_cpus=(-server-cpus 0)
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/load/$stamp
mkdir -p "$out/bin"
# The binaries are only needed during the run; the results stay.
trap 'rm -rf "$out/bin"' EXIT
machine_info "$command" > "$out/machine.txt"
start=$(date +%s)

echo "== building ${#picked[@]} servers and the load generator into $out/bin"
servers=()
for k in "${!picked[@]}"; do
  s=${picked[$k]}
  go build -o "$out/bin/$s" "./${packages[$k]}"
  servers+=("$s=$out/bin/$s")
done
go build -o "$out/bin/load" ./scripts/cmd/load

echo "== load test on 127.0.0.1   ($(elapsed "$start")); the load generator shares this machine's $(nproc) cores with the server"
# The load generator runs in the background so that this script can pass a
# SIGTERM on to it; it stops its servers on SIGINT and SIGTERM, and on Linux
# the kernel kills them if it dies. Waiting again after a signal lets it
# finish stopping them before this script exits.
"${pin_load[@]}" "$out/bin/load" -out "$out" -header "$out/machine.txt" -rate "$rate" \
  -duration "$duration" -warmup "$warmup" -conns "$conns" -rounds "$rounds" "${server_cpus[@]}" \
  "${servers[@]}" &
load_pid=$!
trap 'kill -TERM "$load_pid" 2>/dev/null || true' INT TERM
status=0
while :; do
  wait "$load_pid" && status=0 || status=$?
  kill -0 "$load_pid" 2>/dev/null || break
done
[ "$status" -eq 0 ] || { echo "load.sh: failed (exit $status); server logs in $out" >&2; exit "$status"; }

ln -sfn "$stamp" results/load/latest
echo
echo "measured on: $(measured_on "$out/machine.txt")"
echo "results: $out (one .txt per stage in benchmark format, table.md) in $(elapsed "$start")"
