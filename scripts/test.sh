#!/usr/bin/env bash
# test.sh: every check of the repository, over every module of go.work.
#   1. go vet
#   2. go test -race: the conformance suite, the differential tests, the
#      seed corpora of the fuzz targets, and the unit tests
#   3. every benchmark once (-benchtime 1x), so that none can rot
#   4. ./scripts/report.sh --check: the README's figures against the code they
#      measured; printed, never a failure (code changes before it is measured)
# Exits non-zero on the first failure of 1 to 3.
source "$(dirname "$0")/lib.sh"
[ $# -eq 0 ] || die "takes no arguments (--help says what it runs)"

# Every package of every module in the workspace shares this prefix.
all=example.com/userperf/...
start=$(date +%s)

echo "== go vet $all"
go vet "$all"

echo "== go test -race $all   ($(elapsed "$start"))"
go test -race "$all"

echo "== every benchmark once   ($(elapsed "$start"))"
go test -run '^$' -bench . -benchtime 1x "$all"

echo "== figures against the code they measured   ($(elapsed "$start"))"
verdict="every figure measured the code at HEAD"
./scripts/report.sh --check || verdict="stale figures above: regenerate them before a release (not a test failure)"

echo "== all checks passed in $(elapsed "$start"); figures: $verdict"
