#!/usr/bin/env bash
# load.sh: every stage's server under HTTP load on 127.0.0.1, and the floor.
#
#   ./scripts/load.sh                              every stage and the floor (about 45 s per stage)
#   ./scripts/load.sh --quick stage0-linear floor  2 s per test: a smoke run
#   ./scripts/load.sh --rounds 6                   enough samples for benchstat's confidence intervals
#
# Options: --rate N (fixed-rate test, requests/s, default 100), --duration D (each test, each round,
# default 10s), --conns N (saturated test, default 32), --rounds N (default 1), --pin / --no-pin (server
# on CPU 0 and load generator on CPU 1 with taskset; default: --no-pin).
#
# scripts/cmd/load measures (its doc says how) and writes results/load/<stamp>/: <stage>.txt in Go
# benchmark format (`go tool benchstat A=results/load/latest/stage0-linear.txt B=results/load/latest/floor.txt`;
# add `-ignore date,commit,command` to compare two runs), table.md and <stage>.log (the server's output).
source "$(dirname "$0")/lib.sh"

# 100 req/s: above what a stage can serve, a fixed-rate test measures the queue in front of it; stage0-linear
# spends milliseconds of CPU on a role=editor request and shares two cores with the load generator.
duration=10s warmup=2s rate=100 conns=32 rounds=1 pin=no picked=() servers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) duration=2s warmup=1s ;;
    --rate|--duration|--conns|--rounds) printf -v "${1#--}" %s "$2"; shift ;;
    --pin) pin=yes ;;
    --no-pin) pin=no ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) picked+=("${1%/}") ;;
  esac
  shift
done
[ ${#picked[@]} -gt 0 ] || picked=($(ask_stages list))
stage_dirs "${picked[@]}"

# Pinning is off by default. Measured on this project's 2-core machine (3 rounds of 3 s, stage0-linear
# and the floor): pinned, stage0-linear's saturated req/s was steadier (highest minus lowest round over
# the median 4% instead of 46%), the floor's was not (34% against 21%), and every saturated throughput
# halved, because a pinned server has one core: stage3's parallel chunks could not show their gain.
pin_load=() server_cpus=() cpus="not pinned: the load generator shares every core with the server"
if [ "$pin" = yes ]; then
  command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] || die "--pin needs taskset and 2 CPUs"
  pin_load=(taskset -c 1) server_cpus=(-server-cpus 0) cpus="server pinned to CPU 0, load generator on CPU 1"
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/load/$stamp
mkdir -p "$out/bin"
trap 'rm -rf "$out/bin"' EXIT # the binaries are only needed during the run
{
  machine_info
  echo "load-generator: vegeta $(go list -m -f '{{.Version}}' github.com/tsenart/vegeta/v12) on the same machine"
  echo "load-cpus: $cpus"
  echo "load-settings: rate=$rate/s conns=$conns duration=$duration rounds=$rounds warmup=$warmup"
} > "$out/machine.txt"
start=$(date +%s)

echo "== building ${#picked[@]} servers and the load generator into $out/bin" >&2
for k in "${!picked[@]}"; do
  go build -o "$out/bin/${picked[$k]}" "./${dirs[$k]}"
  servers+=("$out/bin/${picked[$k]}")
done
go build -o "$out/bin/load" ./scripts/cmd/load

echo "== load test on 127.0.0.1 ($(elapsed "$start")), sharing this machine's $(nproc) cores with the servers" >&2
"${pin_load[@]}" "$out/bin/load" -out "$out" -header "$out/machine.txt" -rate "$rate" -duration "$duration" \
  -warmup "$warmup" -conns "$conns" -rounds "$rounds" "${server_cpus[@]}" "${servers[@]}" ||
  { echo "load.sh: failed; server logs in $out" >&2; exit 1; }

ln -sfn "$stamp" results/load/latest
echo
echo "measured on: $(measured_on "$out/machine.txt")"
echo "results: $out (one .txt per stage in benchmark format, table.md) in $(elapsed "$start")"
