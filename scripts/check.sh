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
# Which stages it compares with: the origin is the stage STAGE was copied from, read from the
# "// origin:" line that new-stage.sh writes in its go.mod (--from overrides it). A side quest's
# starting point is no stage of its own, so the comparison uses the stage it was built on. The
# reference is the stage that solves the exercise: stage0-linear -> stage1-index, stage1-index ->
# stage2-noclone, stage2-noclone -> stage3-parallel, stage3-parallel -> stage4-append,
# stage4-append -> stage5-materialized,
# workshop/quest6-cache -> quest6-cache-fixed, workshop/quest7-logging -> quest7-logging-fixed
# (--against overrides it). A stage with no origin, such as one of the project's own, is compared with
# stage0-linear, and with a reference only if --against names one. The figure quoted is the median of
# ListByRole/users=10000/matches=100, the case study's request; compare.sh's table above it has every
# row. Six short rounds on a busy laptop are noisy: the line says "(within the noise)" when benchstat
# finds no significant difference, and a figure worth quoting needs a longer compare.sh run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

die() { echo "check.sh: $*" >&2; exit 2; }

stage= from= against= compare=true
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=${2%/}; shift ;;
    --against) [ $# -ge 2 ] || die "--against needs a stage"; against=${2%/}; shift ;;
    --no-compare) compare=false ;;
    -h|--help) awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$stage" ] || die "one stage at a time (got $stage and $1)"; stage=${1%/} ;;
  esac
  shift
done
[ -n "$stage" ] || die "name the stage to check: ./scripts/check.sh STAGE (--help for more)"

# folder_of prints the folder of a stage given by name or by folder.
folder_of() {
  local f=${1#./}
  if [ -f "$f/go.mod" ]; then
    echo "$f"
  elif declare -F stage_dirs >/dev/null; then
    stage_dirs "$1" 2>/dev/null
  else
    return 1
  fi
}
# is_stage reports whether folder $1 is a stage the scripts can measure:
# a module of go.work that runs the shared suites in its stage_test.go.
is_stage() {
  [ -f "$1/stage_test.go" ] || return 1
  local dirs
  dirs=$(go list -m -f '{{.Dir}}')
  awk -v d="$ROOT/$1" '$0 == d { found = 1 } END { exit !found }' <<< "$dirs"
}
# origin_of prints the folder named by the "// origin:" line of folder $1's go.mod.
origin_of() { sed -n 's|^// origin: \([^ ]*\).*|\1|p' "$1/go.mod" 2>/dev/null | head -n 1; }
# reference_for prints the folder of the stage that solves the exercise starting at folder $1.
reference_for() {
  case "$1" in
    stage0-linear) echo stage1-index ;;
    stage1-index) echo stage2-noclone ;;
    stage2-noclone) echo stage3-parallel ;;
    stage3-parallel) echo stage4-append ;;
    stage4-append) echo stage5-materialized ;;
    workshop/quest6-cache) echo workshop/solutions/quest6-cache-fixed ;;
    workshop/quest7-logging) echo workshop/solutions/quest7-logging-fixed ;;
  esac
}

dir=$(folder_of "$stage") || die "no stage $stage: give a stage's folder, such as mystage or stage1-index"
name=$(basename "$dir")
[ -f "$dir/main.go" ] || die "$dir has no main.go: it is not a stage"

# The comparison: the origin (walking up past starting points, which are no
# stages) and the reference (the first exercise on the way up).
base= reference= note=
if $compare; then
  origin=${from:-$(origin_of "$dir")}
  # A stage with no recorded origin (one of the project's own) is compared
  # with the baseline, and with a reference only if --against names one.
  exercise=true
  if [ -z "$origin" ]; then
    exercise=false
    [ "$dir" = stage0-linear ] || origin=stage0-linear
  fi
  if [ -n "$origin" ]; then
    origin=$(folder_of "$origin") || die "the origin $origin of $stage is no stage or folder here"
  fi
  walk=$origin
  for _ in 1 2 3 4 5 6 7 8; do
    [ -n "$walk" ] || break
    if [ -z "$base" ] && is_stage "$walk"; then base=$walk; fi
    if [ -z "$reference" ] && $exercise; then reference=$(reference_for "$walk"); fi
    [ -z "$base" ] || [ -z "$reference" ] || break
    walk=$(origin_of "$walk")
  done
  if [ -n "$against" ]; then
    reference=$(folder_of "$against") || die "--against $against: no such stage"
  fi
  if [ -n "$reference" ] && ! is_stage "$reference"; then
    note="the reference $reference is not a stage of go.work yet, so it is left out"
    reference=
  fi
  [ "$reference" != "$dir" ] && [ "$reference" != "$base" ] || reference=
  [ "$base" != "$dir" ] || base=
fi

logs=results/check/$name
rm -rf "$logs"
mkdir -p "$logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
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
    END {
      printf "%s", fails
      if (text != "") printf "%s", text
      if (races != "") printf "%s", races
      if (crash != "") printf "%s", crash
    }' "$1"
}

# run_tests runs the race-enabled test binary in the stage's folder with
# the given flags, shows the end of its output if it fails, and stops the
# check with the verdict named $1.
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
  if [ "$lines" -gt 200 ]; then
    echo "   ... the first $((lines - 150)) of $lines lines of output are in $log"
    tail -n 150 "$log"
  else
    cat "$log"
  fi
  summarize "$log"
  if grep -q '^WARNING: DATA RACE' "$log"; then
    verdict_failed "the race detector, in $what"
  fi
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

names=()
for s in "$base" "$dir" "$reference"; do
  [ -n "$s" ] || continue
  names+=("$(basename "$s")")
done
echo "== check 7/$steps: the speed: ./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole\$' ${names[*]}"
[ -z "$note" ] || echo "   ($note)"
./scripts/compare.sh --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$' "${names[@]}" 2>&1 |
  tee "$logs/compare.log" || verdict_failed "the comparison (compare.sh)"

# The ratios, from the result files compare.sh just wrote, read by benchstat,
# one pair of stages at a time so that its "vs base" column says whether
# the difference is larger than the noise ("~" when it is not).
row='ListByRole/users=10000/matches=100'
pair() { # FILE_A FILE_B: prints A's median sec/op, B's, and benchstat's verdict on B against A
  local csv
  csv=$(go tool benchstat -format csv -ignore pkg -filter '.name:ListByRole /users:10000 /matches:100' "a=$1" "b=$2" 2>/dev/null) || return 1
  awk -F, -v row="$row" '
    index($1, row) == 1 && (length($1) == length(row) || substr($1, length(row) + 1, 1) == "-") { print $2, $4, $6; found = 1; exit }
    END { exit !found }' <<< "$csv"
}
result() { echo "results/compare/latest/$(basename "$1").txt"; }
noise() { [ "$1" != "~" ] || echo " (within the noise)"; }

parts=()
if [ -n "$base" ]; then
  read -r b s v < <(pair "$(result "$base")" "$(result "$dir")") || verdict_failed "reading the comparison: no $row row for $(basename "$base") and $name"
  parts+=("$(awk -v b="$b" -v s="$s" -v n="$(basename "$base")" 'BEGIN {
    if (s <= b) printf "%.1fx faster than %s", b / s, n; else printf "%.1fx slower than %s", s / b, n }')$(noise "$v")")
fi
if [ -n "$reference" ]; then
  read -r s r v < <(pair "$(result "$dir")" "$(result "$reference")") || verdict_failed "reading the comparison: no $row row for $name and $(basename "$reference")"
  parts+=("$(awk -v s="$s" -v r="$r" -v n="$(basename "$reference")" 'BEGIN { printf "%.1fx the speed of %s", r / s, n }')$(noise "$v")")
fi
echo
if [ ${#parts[@]} -eq 0 ]; then
  echo "check: $name passed (nothing to compare it with)"
else
  summary=$(printf '%s; ' "${parts[@]}")
  summary=${summary%; }
  echo "check: $name passed: ${summary//; /, } ($row)"
fi
