#!/usr/bin/env bash
# test.sh: every check of the repository, over every module of go.work.
#   1. go vet
#   2. go test -race: the conformance suite, the differential tests, the
#      seed corpora of the fuzz targets, and the unit tests
#   3. every benchmark once (-benchtime 1x), so that none can rot
# Exits non-zero on the first failure.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

# Every package of every module in the workspace shares this prefix.
all=example.com/userperf/...
start=$(date +%s)

echo "== go vet $all"
go vet "$all"

echo "== go test -race $all   ($(elapsed "$start"))"
go test -race "$all"

echo "== every benchmark once   ($(elapsed "$start"))"
go test -run '^$' -bench . -benchtime 1x "$all"

echo "== all checks passed in $(elapsed "$start")"
