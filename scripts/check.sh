#!/usr/bin/env bash
# check.sh: one verdict on a stage, yours or the project's, in about a minute.
#
#   ./scripts/check.sh mystage                          every check, then its speed against its origin and the reference
#   ./scripts/check.sh mystage --against stage5-materialized   another reference
#   ./scripts/check.sh mystage --from stage2-noclone    another origin
#   ./scripts/check.sh mystage --no-compare             correctness only (half the time)
#
# STAGE is a stage's name or folder (mystage, workshop/solutions/quest6-cache-fixed). The checks, in order,
# each stopping the run at its first failure, every test under the race detector:
#   1. go vet
#   2. the build of its tests with -race
#   3. the conformance suite, TestAPI: statuses, headers, exact bytes; writes then reads; concurrent
#      readers and writers, where the race detector sees what the stage does not lock
#   4. the differential tests, TestDifferential: random sequences against the reference model, by seed
#   5. the fuzz targets' seed corpora, as a plain go test runs them
#   6. the stage's own tests, if it has any
#   7. the speed: ./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$'
#      ORIGIN STAGE REFERENCE
# A test still running after 60 s (USERPERF_CHECK_TIMEOUT) fails its step, with the goroutines that wait
# for a lock and the lines of the stage that asked for it: a deadlock is reported in about a minute.
# It ends with one line: "check: STAGE passed: ..." with the speed-ups, or "check: STAGE FAILED: <check>"
# under the end of the failing output, the failing test and its first message (the request that went
# wrong). Every step's whole output, the verdict and the results of the speed step are kept in
# results/check/STAGE/, where ./scripts/handin.sh finds them.
#
# ORIGIN is the stage STAGE was copied from (--from, or the "// origin:" line new-stage.sh writes in its
# go.mod); REFERENCE solves the exercise: the solution in workshop/solutions/ whose origin is ORIGIN
# (stage3-parallel -> ex4-plain-append, stage4-append -> ex5-plain-encode-once, workshop/quest6-cache
# -> quest6-cache-fixed), else the next step by number (stage1-index -> stage2-noclone), or --against. The project's own stages
# are compared with stage0-linear alone. `go run ./scripts/cmd/stages against STAGE` shows the two. The
# line quotes the medians of ListByRole/users=10000/matches=100, with "(within the noise)" when benchstat
# finds no significant difference: six short rounds are noisy; quote a longer compare.sh run.
source "$(dirname "$0")/lib.sh"

stage= from= against= compare=true
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=${2%/}; shift ;;
    --against) [ $# -ge 2 ] || die "--against needs a stage"; against=${2%/}; shift ;;
    --no-compare) compare=false ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$stage" ] || die "one stage at a time (got $stage and $1)"; stage=${1%/} ;;
  esac
  shift
done
[ -n "$stage" ] || die "name the stage to check: ./scripts/check.sh STAGE (--help for more)"
dir=${stage#./}
[ -f "$dir/go.mod" ] || dir=$(ask_stages dir "$stage" 2>/dev/null) ||
  die "no stage $stage: give a stage's folder, such as mystage or stage1-index"
name=${dir##*/}
[ -f "$dir/main.go" ] || die "$dir has no main.go: it is not a stage"
if $compare; then
  pair=$(ask_stages against "$dir" ${from:+"$from"}) || die "cannot tell what to compare $stage with"
  read -r base reference <<< "$pair"
  base=${base#-} reference=${reference#-} # "-" is none; no name starts with a dash
  if [ -n "$against" ]; then
    reference=${against##*/}
    ask_stages dir "$reference" > /dev/null || die "--against $against: no such stage"
  fi
fi

# Each step's tests take seconds; a test still running after this is stuck.
timeout=${USERPERF_CHECK_TIMEOUT:-60s}
logs=results/check/$name
rm -rf "$logs"
mkdir -p "$logs"
tmp=$(mktemp -d)
at_exit 'rm -rf "$tmp"'
start=$(date +%s) step=0 steps=$($compare && echo 7 || echo 6)
next_check() { step=$((step + 1)); echo "== check $step/$steps: $*"; }
# verdict prints the last line, and keeps it for scripts/handin.sh.
verdict() { printf '\ncheck: %s %s\n' "$name" "$1"; echo "$1" > "$logs/verdict.txt"; }
verdict_failed() { verdict "FAILED: $1, see above"; exit 1; }

# summarize prints what failed in test output $1: the failing tests, the first message of a test
# with the lines under it (the request it sent), the first data race and the first panic.
summarize() {
  printf '\n-- what failed (the whole output: %s)\n' "$1"
  grep -E '^[[:space:]]*--- FAIL: ' "$1" | sed -E 's/^[[:space:]]*/   /' || true
  awk '!m && /^[[:space:]]+[A-Za-z0-9_.-]+\.go:[0-9]+: / { m = 1; i = match($0, /[^[:space:]]/); print "   " substr($0, i); next }
    m == 1 && n++ < 13 && match($0, /[^[:space:]]/) > i { print "     " substr($0, i); next }
    m { m = 2 }' "$1"
  grep -m 1 -A 13 '^WARNING: DATA RACE' "$1" | sed 's/^/   /' || true
  grep -m 1 -E '^(panic: |fatal error: )' "$1" | sed 's/^/   /' || true
  grep -q '^panic: test timed out' "$1" && lock_waits "$1"
  return 0
}

# lock_waits names, after a test timed out, the goroutines of the stage that wait for a lock, by
# the lock and the line of the stage's code that asked for it: a deadlock, when nothing else runs.
lock_waits() {
  printf '   %s ran over %s: usually a deadlock. Goroutines waiting for a lock, where the stage asked for it:\n' \
    "$(awk '/^\trunning tests:/ { on = 1; next } on && NF == 0 { exit } on { t = $1 } END { print t }' "$1")" "$timeout"
  awk -v dir="/$dir/" '
    /^goroutine [0-9]+ \[/ { split($0, h, /[[,\]]/); lock = h[2] ~ /Mutex|sync\.Cond|WaitGroup|semacquire/; fn = ""; next }
    lock && /^[^\t]/ { fn = $0; sub(/\([^(]*$/, "", fn); sub(/.*\//, "", fn); next }
    lock && index($0, dir) { loc = $1; sub(/.*\//, "", loc); print "waiting for " h[2] " in " fn " (" loc ")"; lock = 0 }
  ' "$1" | sort | uniq -c | sort -rn | head -n 8 | sed -E 's/^ *1 /     1 goroutine /; t; s/^ *([0-9]+) /     \1 goroutines /'
  printf '   (on a slow machine that is not deadlocked: USERPERF_CHECK_TIMEOUT=5m ./scripts/check.sh %s)\n' "$stage"
}

# run_tests WHAT LOG FLAGS... runs the race-enabled test binary in the stage's folder; if it fails,
# it shows the end of the output and what failed, and stops with the verdict WHAT.
run_tests() {
  local what=$1 log=$logs/$2.log lines
  shift 2
  if (cd "$dir" && "$tmp/stage.test" -test.count 1 -test.failfast -test.timeout "$timeout" "$@") > "$log" 2>&1 &&
    ! grep -q '^WARNING: DATA RACE' "$log"; then
    echo "   ok ($(elapsed "$start") so far)"
    return
  fi
  lines=$(wc -l < "$log")
  [ "$lines" -le 150 ] || echo "   ... the first $((lines - 150)) of $lines lines of output are in $log"
  tail -n 150 "$log"
  summarize "$log"
  ! grep -q '^WARNING: DATA RACE' "$log" || what="the race detector, in $what"
  verdict_failed "$what"
}

next_check "go vet ./$dir"
go vet "./$dir" || verdict_failed "go vet"
next_check "build its tests with the race detector"
go test -c -race -o "$tmp/stage.test" "./$dir" || verdict_failed "the build of its tests"
tests=$(cd "$dir" && "$tmp/stage.test" -test.list '.*')
for t in TestAPI TestDifferential FuzzDifferential; do
  grep -qx "$t" <<< "$tests" || verdict_failed "the shared suites: $dir has no $t; its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential as stage0-linear/stage_test.go does"
done
next_check "the conformance suite (TestAPI), under -race"
run_tests "the conformance suite (TestAPI)" conformance -test.run '^TestAPI$'
next_check "the differential tests (TestDifferential), under -race"
run_tests "the differential tests (TestDifferential)" differential -test.run '^TestDifferential$'
next_check "the fuzz seed corpora (Fuzz*), under -race"
run_tests "the fuzz seed corpora" fuzz -test.run '^Fuzz'
next_check "the stage's own tests, under -race"
if grep -qvE '^(TestAPI|TestDifferential|Fuzz.*|Benchmark.*|Example.*|ok .*)$' <<< "$tests"; then
  run_tests "the stage's own tests" own -test.skip '^(TestAPI|TestDifferential|Fuzz.*)$'
else
  echo "   none"
fi
if ! $compare; then
  verdict "passed (no speed comparison: --no-compare)"
  exit 0
fi

# shellcheck disable=SC2206 # base and reference are one word each, or none
names=($base "$name" $reference)
next_check "the speed: ./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole\$' ${names[*]}"
./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$' "${names[@]}" 2>&1 |
  tee "$logs/compare.log" || verdict_failed "the comparison (compare.sh)"
row=ListByRole/users=10000/matches=100 summary=
for s in $base $reference; do
  summary+=", $(go run ./scripts/cmd/report ratio -name "$row" "results/compare/latest/$s.txt" "results/compare/latest/$name.txt")" ||
    verdict_failed "reading the comparison with $s"
done
# The three stages' results, kept for scripts/handin.sh.
for pair in "origin $base" "mine $name" "reference $reference"; do
  read -r role s <<< "$pair"
  [ -z "$s" ] || cp "results/compare/latest/$s.txt" "$logs/speed-$role.txt"
done
if [ -z "$summary" ]; then
  verdict "passed (nothing to compare it with)"
else
  verdict "passed: ${summary#, } ($row${USERPERF_PARALLEL_MIN:+, USERPERF_PARALLEL_MIN=$USERPERF_PARALLEL_MIN})"
fi
