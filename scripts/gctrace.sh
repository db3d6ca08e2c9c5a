#!/usr/bin/env bash
# gctrace.sh: how often the garbage collector runs while a stage answers requests, at each data size.
#
#   ./scripts/gctrace.sh              stage1-index and stage2-noclone; writes the gctrace block
#                                     of stage1-index/README.md and prints it
#   ./scripts/gctrace.sh --print      the same, printed only: no file changes
#   ./scripts/gctrace.sh --requests N requests per run (default 20000)
#
# Each stage's BenchmarkListByRole/users=U/matches=100 runs with GODEBUG=gctrace=1, which makes
# the runtime print one line per collection on stderr, at a fixed number of iterations
# (-test.benchtime Nx, so that every size serves the same number of requests). Generating the
# users and checking the first answer collect too, so a one-request run counts those collections,
# and only the ones after them are counted. Forced collections (runtime.GC) are left out.
# It takes under a minute; progress goes to stderr.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

requests=20000 write=true
stages=(stage1-index stage2-noclone) sizes=(1000 10000 100000)
chapter=stage1-index/README.md
while [ $# -gt 0 ]; do
  case "$1" in
    --requests) requests=${2:?--requests needs a number}; shift ;;
    --print) write=false ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "gctrace.sh: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run STAGE USERS N: runs N requests with gctrace on; the benchmark line goes
# to $tmp/STAGE-USERS-N.out and the gctrace lines to $tmp/STAGE-USERS-N.gc.
run() {
  local out=$tmp/$1-$2-$3
  if ! (cd "$1" && GODEBUG=gctrace=1 "$tmp/$1.test" -test.run '^$' -test.benchmem -test.benchtime "$3x" \
    -test.bench "^BenchmarkListByRole\$/^users=$2\$/^matches=100\$") > "$out.out" 2> "$out.gc" ||
    ! grep -q '^BenchmarkListByRole' "$out.out"; then
    cat "$out.out" "$out.gc" >&2
    echo "gctrace.sh: the benchmark of $1 at $2 users failed" >&2
    exit 1
  fi
}

# steady FILE_1 FILE_N: the gctrace lines of the N-request run after the
# set-up's, whose number the one-request run gives, without forced ones.
steady() { grep '^gc ' "$2" | tail -n +$(($(grep -c '^gc ' "$1") + 1)) | grep -v '(forced)$' || true; }

# median N: the median of the Nth field of "A B" lines on stdin.
median() { cut -d' ' -f"$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

block=$tmp/block.md
{
  echo "Garbage collections during $requests requests (\`BenchmarkListByRole/users=U/matches=100\` run with"
  echo "\`GODEBUG=gctrace=1\` and \`-test.benchtime ${requests}x\`, after the collections of the set-up, which a"
  echo "one-request run counts). Each gctrace line contains \`A->B->C MB, G MB goal\`: C is the heap that the"
  echo "collection found live, G the heap size it aimed to finish under. The table gives the median of each."
  echo
  echo "| stage | users | bytes allocated per request | collections | live heap | heap goal |"
  echo "|---|---:|---:|---:|---:|---:|"
} > "$block"
for s in "${stages[@]}"; do
  echo "== $s: building the test binary   ($(elapsed "$start"))" >&2
  go test -c -o "$tmp/$s.test" "./$s"
  for u in "${sizes[@]}"; do
    echo "== $s: $requests requests at $u users   ($(elapsed "$start"))" >&2
    run "$s" "$u" 1
    run "$s" "$u" $((requests + 1))
    out=$tmp/$s-$u-$((requests + 1))
    steady "$tmp/$s-$u-1.gc" "$out.gc" > "$out.steady"
    # "live goal" from "..., 3->3->1 MB, 4 MB goal, ..."
    sed -E 's/.* [0-9]+->[0-9]+->([0-9]+) MB, ([0-9]+) MB goal.*/\1 \2/' "$out.steady" > "$out.heap"
    bytes=$(awk '/^BenchmarkListByRole/ { for (i = 2; i <= NF; i++) if ($i == "B/op") print $(i-1) }' "$out.out")
    echo "| $s | $u | $bytes | $(wc -l < "$out.steady") | $(median 1 < "$out.heap") MB | $(median 2 < "$out.heap") MB |" >> "$block"
  done
done
{
  echo
  echo "Two consecutive gctrace lines from the runs of ${stages[0]}: the last pair at the median goal if there"
  echo "is one, else the last two:"
  echo
  echo '```'
  for u in "${sizes[0]}" "${sizes[-1]}"; do
    out=$tmp/${stages[0]}-$u-$((requests + 1))
    echo "# users=$u"
    awk -v goal=", $(median 2 < "$out.heap") MB goal," '
      index($0, goal) && prev && $2 == n + 1 { a = prev; b = $0 }
      { prev = index($0, goal) ? $0 : ""; n = $2; l1 = l2; l2 = $0 }
      END { if (a) print a "\n" b; else print l1 "\n" l2 }' "$out.steady"
  done
  echo '```'
  echo
  info=$(machine_info "./scripts/gctrace.sh")
  field() { echo "$info" | sed -n "s/^$1: //p"; }
  commit=$(field commit) # a short hash, maybe followed by "(with uncommitted changes)"
  echo "Measured on $(field machine-cpu) ($(field machine-cores) cores), $(field go-version), $(field date)," \
    "commit \`${commit%% *}\`${commit#"${commit%% *}"}, by \`./scripts/gctrace.sh\`."
} >> "$block"

cat "$block"
if $write; then
  # Replace the text between the block's markers, and nothing else.
  awk -v file="$block" '
    /^<!-- END GENERATED: gctrace -->$/ { inside = 0; ended = found }
    !inside { print }
    /^<!-- BEGIN GENERATED: gctrace -->$/ { while ((getline line < file) > 0) print line; inside = 1; found = 1 }
    END { if (!ended) exit 1 }' "$chapter" > "$tmp/chapter.md" ||
    { echo "gctrace.sh: $chapter has no gctrace block (BEGIN and END GENERATED markers)" >&2; exit 1; }
  cp "$tmp/chapter.md" "$chapter"
  echo "== wrote the gctrace block of $chapter in $(elapsed "$start")" >&2
fi
