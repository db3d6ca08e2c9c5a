#!/usr/bin/env bash
# report.sh: the latest results as charts and as the READMEs' tables, never typed by hand.
#
#   ./scripts/report.sh               from results/compare/latest, results/load/latest (if any)
#                                     and the profiles saved in results/profile (if any)
#   ./scripts/report.sh --profiles    profile every stage first (./scripts/profile.sh, about 10 s each)
#   ./scripts/report.sh --check       list every generated block and chart whose measured code (the
#                                     stage folders, common, the benchmark harness) changed after the
#                                     commit it records, or that records none: exit 1 if there is any,
#                                     2 if the check could not run
#
# Run ./scripts/compare.sh first, and ./scripts/load.sh for the load table and chart. It writes
# docs/charts/*.svg, README.md's blocks stages, charts and load, and each chapter's blocks benchstat
# (against the previous stage and the first) and profile (the CPU table); only the text between
# <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> changes. Every block and chart
# ends with a provenance line: machine, date, commit `<sha>` and command. Then it lists the stale
# figures, as --check does: a profile of older code is one. A hand-run script writes a block too:
#   go run ./scripts/cmd/report block -file FILE.md -name NAME -- BENCHSTAT_ARGS...
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

profiles=false check=false
for arg in "$@"; do
  case "$arg" in
    --profiles) profiles=true ;;
    --check) check=true ;;
    -h|--help) usage "$0"; exit 0 ;;
    *) echo "report.sh: unknown argument $arg (--help lists them)" >&2; exit 2 ;;
  esac
done
# Built rather than run with go run, which turns every failure into exit 1.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/report" ./scripts/cmd/report
if ! $check; then
  if $profiles; then
    for s in $(stages); do ./scripts/profile.sh "$s" > /dev/null; done # its progress goes to stderr
  fi
  "$bin/report"
fi
status=0
"$bin/report" check || status=$?
if $check || [ "$status" -gt 1 ]; then exit "$status"; fi
echo "review with: git diff README.md '*/README.md' docs/charts"
