#!/usr/bin/env bash
# check.sh: one verdict on a stage, yours or the project's, in about a minute.
#
#   ./scripts/check.sh mystage                          every check, then its speed against its origin and the reference
#   ./scripts/check.sh mystage --against stage5-materialized   another reference
#   ./scripts/check.sh mystage --no-compare             correctness only (half the time)
#
# STAGE is a stage's name or folder (mystage, workshop/solutions/quest6-cache-fixed). The checks, in order,
# each stopping the run at its first failure:
#   1. go vet
#   2. the tests build with the race detector (every test below runs under -race)
#   3. the conformance suite: TestAPI (statuses, headers and exact bytes; writes then reads; concurrent
#      readers and writers, where the race detector sees what the stage does not lock)
#   4. the differential tests: TestDifferential (random sequences against the reference, by seed)
#   5. the fuzz targets' seed corpora, as a plain go test runs them (FuzzDifferential, and the stage's own)
#   6. the stage's own tests, if it has any (stage2's view test, stage4's encoder tests, ...)
#   7. the speed: ./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$'
#      ORIGIN STAGE REFERENCE, read back with go tool benchstat
# and ends with one line: "check: STAGE passed: ..." with the speed-ups, or "check: STAGE FAILED: <check>".
# When a test fails, the end of its output is shown, then the failing test and its first message, which
# names the request that went wrong; the whole output of every step is in results/check/STAGE/.
#
# Which stages it compares with (go run ./scripts/cmd/stages against DIR answers): the origin is the
# stage STAGE was copied from, read from the "// origin:" line that new-stage.sh writes in its go.mod
# (--from overrides it); a side quest's starting point is no stage of its own, so the comparison uses
# the stage it was built on, if any. The reference is the stage that solves the exercise: after a step
# the next step of go.work by number (stage1-index -> stage2-noclone), after a side quest's starting
# point its solution, named like it with -fixed (workshop/quest6-cache -> quest6-cache-fixed)
# (--against overrides it). A stage with no origin, such as one of the project's own, is compared with
# stage0-linear, and with a reference only if --against names one. The figure quoted is the median of
# ListByRole/users=10000/matches=100, the case study's request; compare.sh's table above it has every
# row. Six short rounds on a busy laptop are noisy: the line says "(within the noise)" when benchstat
# finds no significant difference, and a figure worth quoting needs a longer compare.sh run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

stage= from= against= compare=true
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=${2%/}; shift ;;
    --against) [ $# -ge 2 ] || die "--against needs a stage"; against=${2%/}; shift ;;
    --no-compare) compare=false ;;
    -h|--help) usage "$0"; exit 0 ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$stage" ] || die "one stage at a time (got $stage and $1)"; stage=${1%/} ;;
  esac
  shift
done
[ -n "$stage" ] || die "name the stage to check: ./scripts/check.sh STAGE (--help for more)"

# The stage's folder, from its folder or its name.
dir=${stage#./}
[ -f "$dir/go.mod" ] || dir=$(stage_dirs "$stage" 2>/dev/null) ||
  die "no stage $stage: give a stage's folder, such as mystage or stage1-index"
name=${dir##*/}
[ -f "$dir/main.go" ] || die "$dir has no main.go: it is not a stage"
base= reference=
if $compare; then
  pair=$(ask_stages against "$dir" ${from:+"$from"}) || die "cannot tell what to compare $stage with"
  read -r base reference <<< "$pair"
  [ "$base" != - ] || base=
  [ "$reference" != - ] || reference=
  if [ -n "$against" ]; then
    reference=${against##*/}
    stage_dirs "$reference" > /dev/null || die "--against $against: no such stage"
  fi
fi

logs=results/check/$name
rm -rf "$logs"
mkdir -p "$logs"
tmp=$(mktemp -d)
at_exit 'rm -rf "$tmp"'
start=$(date +%s)

verdict_failed() {
  echo
  echo "check: $name FAILED: $1, see above"
  exit 1
}

# summarize prints what failed in the output file $1: the failing tests, the
# first message of a test (which names the request it sent), a panic, a
# timeout or the start of a data race report.
summarize() {
  echo
  echo "-- what failed (the whole output: $1)"
  awk '
    /^[[:space:]]*--- FAIL: / { sub(/^[[:space:]]*/, ""); fails = fails "   " $0 "\n" }
    !msg && /^[[:space:]]+[A-Za-z0-9_.-]+\.go:[0-9]+: / {
      msg = 1; indent = match($0, /[^[:space:]]/); text = "   " substr($0, indent) "\n"; n = 1; next
    }
    msg == 1 {
      if (n < 14 && match($0, /[^[:space:]]/) > indent) { text = text "     " substr($0, indent) "\n"; n++; next }
      msg = 2
    }
    !race && /^WARNING: DATA RACE/ { race = 1; r = 0 }
    race == 1 { if (r++ < 14) races = races "   " $0 "\n"; else race = 2 }
    !crash && /^(panic: |fatal error: )/ { crash = "   " $0 "\n" }
    END { printf "%s%s%s%s", fails, text, races, crash }' "$1"
}

# run_tests WHAT LOG FLAGS... runs the race-enabled test binary in the
# stage's folder with FLAGS; if it fails, it shows the end of the output and
# stops the check with the verdict WHAT.
run_tests() {
  local what=$1 log=$logs/$2.log status
  shift 2
  (cd "$dir" && "$tmp/stage.test" -test.count 1 -test.failfast -test.timeout 5m "$@") > "$log" 2>&1 && status=0 || status=$?
  if [ "$status" -eq 0 ] && ! grep -q '^WARNING: DATA RACE' "$log"; then
    echo "   ok ($(elapsed "$start") so far)"
    return
  fi
  local lines
  lines=$(wc -l < "$log")
  if [ "$lines" -gt 150 ]; then
    echo "   ... the first $((lines - 150)) of $lines lines of output are in $log"
  fi
  tail -n 150 "$log"
  summarize "$log"
  ! grep -q '^WARNING: DATA RACE' "$log" || verdict_failed "the race detector, in $what"
  verdict_failed "$what"
}

steps=6
$compare && steps=7
echo "== check 1/$steps: go vet ./$dir"
go vet "./$dir" || verdict_failed "go vet"

echo "== check 2/$steps: build its tests with the race detector"
go test -c -race -o "$tmp/stage.test" "./$dir" || verdict_failed "the build of its tests"
tests=$(cd "$dir" && "$tmp/stage.test" -test.list '.*')
for t in TestAPI TestDifferential FuzzDifferential; do
  grep -qx "$t" <<< "$tests" || verdict_failed "the shared suites: $dir has no $t; its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential as stage0-linear/stage_test.go does"
done

echo "== check 3/$steps: the conformance suite (TestAPI), under -race"
run_tests "the conformance suite (TestAPI)" conformance -test.run '^TestAPI$'

echo "== check 4/$steps: the differential tests (TestDifferential), under -race"
run_tests "the differential tests (TestDifferential)" differential -test.run '^TestDifferential$'

echo "== check 5/$steps: the fuzz seed corpora (Fuzz*), under -race"
run_tests "the fuzz seed corpora" fuzz -test.run '^Fuzz'

echo "== check 6/$steps: the stage's own tests, under -race"
if grep -qvE '^(TestAPI|TestDifferential|Fuzz.*|Benchmark.*|Example.*|ok .*)$' <<< "$tests"; then
  run_tests "the stage's own tests" own -test.skip '^(TestAPI|TestDifferential|Fuzz.*)$'
else
  echo "   none"
fi

if ! $compare; then
  echo
  echo "check: $name passed (no speed comparison: --no-compare)"
  exit 0
fi

names=($base "$name" $reference) # base and reference are single words, or nothing
echo "== check 7/$steps: the speed: ./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole\$' ${names[*]}"
./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$' "${names[@]}" 2>&1 |
  tee "$logs/compare.log" || verdict_failed "the comparison (compare.sh)"

# against OLD NEW HOW: how fast stage NEW ran against stage OLD in the run
# above, at $row, as benchstat computes it (scripts/cmd/speedup): "N.Nx
# faster than OLD" (or slower), or with HOW=speed "N.Nx the speed of OLD",
# then "(within the noise)" when benchstat finds no significant difference.
row=ListByRole/users=10000/matches=100
against() {
  local r
  r=$(go run ./scripts/cmd/speedup -name "$row" "results/compare/latest/$1.txt" "results/compare/latest/$2.txt") || return
  awk -v r="$r" -v old="$1" -v how="$3" 'BEGIN {
    split(r, f, " ")
    if (how == "speed") printf "%.1fx the speed of %s", f[1], old
    else if (f[1] >= 1) printf "%.1fx faster than %s", f[1], old
    else printf "%.1fx slower than %s", 1 / f[1], old
    if (f[2] == "~") printf " (within the noise)"
  }'
}
summary=
if [ -n "$base" ]; then
  summary+=", $(against "$base" "$name" than)" || verdict_failed "reading the comparison with $base"
fi
if [ -n "$reference" ]; then
  summary+=", $(against "$reference" "$name" speed)" || verdict_failed "reading the comparison with $reference"
fi
echo
if [ -z "$summary" ]; then
  echo "check: $name passed (nothing to compare it with)"
else
  echo "check: $name passed: ${summary#, } ($row)"
fi
