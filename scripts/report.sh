#!/usr/bin/env bash
# report.sh: the latest results as charts and as the READMEs' tables, never typed by hand.
#
#   ./scripts/report.sh               from results/compare/latest, results/load/latest (if any)
#                                     and the profiles saved in results/profile (if any)
#   ./scripts/report.sh --profiles    profile every stage first (./scripts/profile.sh, about 10 s each)
#   ./scripts/report.sh --check       list every generated block and chart whose measured code (the
#                                     stage folders, common, the harness) changed after the commit it
#                                     records, or that records none: exit 1 if any, 2 if it cannot tell
#
# It writes docs/charts/*.svg, README.md's blocks stages, charts and load, and each chapter's blocks
# benchstat and profile (scripts/cmd/report says more), each ending with its provenance: machine,
# date, commit and command; then it lists the stale figures as --check does (an old profile, say).
source "$(dirname "$0")/lib.sh"

profiles=false check=false
for arg in "$@"; do
  case "$arg" in
    --profiles) profiles=true ;;
    --check) check=true ;;
    *) die "unknown argument $arg (--help lists them)" ;;
  esac
done
bin=$(mktemp -d) # built, as go run would turn every failure into exit status 1
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/report" ./scripts/cmd/report
if ! $check && $profiles; then
  for s in $(ask_stages list | grep -vx floor); do ./scripts/profile.sh "$s" > /dev/null; done # progress: stderr
fi
$check || "$bin/report"
status=0 && "$bin/report" check || status=$?
if $check || [ "$status" -gt 1 ]; then exit "$status"; fi
echo "review with: git diff README.md '*/README.md' docs/charts"
