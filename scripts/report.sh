#!/usr/bin/env bash
# report.sh: the latest results as charts and as the READMEs' tables, never typed by hand.
#
#   ./scripts/report.sh               from results/compare/latest, results/load/latest (if any)
#                                     and the profiles saved in results/profile (if any)
#   ./scripts/report.sh --profiles    profile every stage first (./scripts/profile.sh, about 10 s each)
#   ./scripts/report.sh --check       list every generated block and chart whose measured code (the
#                                     stage folders, common, the benchmark harness) changed after the
#                                     commit it records, or that records none; exits 1 if there is any
#
# Run ./scripts/compare.sh first, and ./scripts/load.sh for the load table and chart. Writes
#   docs/charts/*.svg                       time and allocations per stage, time against users,
#                                           HTTP percentiles per stage, write cost and memory
#   README.md                               the blocks stages, charts and load
#   <stage>/README.md                       the blocks benchstat (against the previous stage and
#                                           the first) and profile (the CPU top table)
# Only the text between <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> changes.
# Every block and chart ends with a provenance line: machine, date, commit `<sha>` and command.
# A hand-run script writes a block of benchstat tables the same way:
#   go run ./scripts/cmd/report block -file FILE.md -name NAME -- BENCHSTAT_ARGS...
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

profiles=false check=false
while [ $# -gt 0 ]; do
  case "$1" in
    --profiles) profiles=true ;;
    --check) check=true ;;
    -h|--help) usage "$0"; exit 0 ;;
    *) echo "report.sh: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
if $check; then
  # Built rather than run with go run, which turns every failure into
  # exit 1: here 1 means stale figures and 2 a check that could not run.
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  go build -o "$bin/report" ./scripts/cmd/report
  status=0
  "$bin/report" check || status=$?
  exit "$status"
fi
if [ ! -d results/compare/latest ]; then
  echo "report.sh: no results/compare/latest: run ./scripts/compare.sh first" >&2
  exit 1
fi
start=$(date +%s)
list=$(stages)

if $profiles; then
  for s in $list; do
    ./scripts/profile.sh "$s" > /dev/null # its progress goes to stderr
  done
fi

# Each chapter shows the CPU table of its stage's saved profile.
for s in $list; do
  dir=results/profile/$s
  [ -f "$dir/cpu.pprof" ] || continue
  pkg=$(stage_dirs "$s")
  if [ -n "$(find "$pkg" common -name '*.go' -newer "$dir/cpu.pprof" | head -1)" ]; then
    echo "report.sh: warning: the profile of $s is older than its sources; --profiles makes a new one" >&2
  fi
  echo "== the CPU table of $s   ($(elapsed "$start"))"
  go run ./scripts/cmd/profiles top -markdown -tables cpu "$dir" > "$dir/top.md"
done

echo "== charts and tables from results/compare/$(readlink results/compare/latest)   ($(elapsed "$start"))"
go run ./scripts/cmd/report
echo "== done in $(elapsed "$start"); review with: git diff README.md '*/README.md' docs/charts"
