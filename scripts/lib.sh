# Shared by the scripts in this folder; sourced, not run, first thing: from
# here on a script stops at the first failing command or unset variable.
set -euo pipefail

# Every script runs in the repository's root, whatever the caller's folder.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# A learner's stages are listed in local.work, which new-stage.sh writes;
# while it exists, every go command of the scripts reads it, not go.work.
if [ -f "$ROOT/local.work" ]; then export GOWORK=$ROOT/local.work; else unset GOWORK; fi

# Every script answers -h or --help, wherever among its arguments, with the
# comment block at its top, without the #: its documentation.
for arg; do
  case $arg in -h|--help) awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
done

# die prints the script's name and a message, and exits 2 (a usage error).
die() { echo "${0##*/}: $*" >&2; exit 2; }

# ask_stages runs scripts/cmd/stages, the one list of stages (its doc lists
# the questions); stage_dirs NAME... sets the array dirs to their package
# folders, or stops the script, before anything is built, at an unknown name.
ask_stages() { (cd "$ROOT" && go run ./scripts/cmd/stages "$@"); }
stage_dirs() { local list; list=$(ask_stages dir "$@") || exit 2; mapfile -t dirs <<< "$list"; }

# command is how the script was run, as a line that a shell reads back as
# the same words: what machine_info records.
command=$(printf '%q ' "./scripts/${0##*/}" "$@") && command=${command% }

# machine_info prints, as "key: value" lines, what a result was measured on
# and how: every result file starts with it. The commit is followed by
# "(with uncommitted changes)" when the measured code differs from it.
machine_info() {
  cat << EOF
machine-cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null | grep . || echo unknown)
machine-cores: $(nproc)
machine-memory: $(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)
machine-os: $(uname -sr)
go-version: $(go env GOVERSION)
date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
commit: $(ask_stages commit || echo none)
command: $command
EOF
}

# measured_on prints the header of result file $1 in one line, for the
# last line of a script's output.
measured_on() {
  awk -F': ' '/^(machine-cpu|machine-cores|go-version|date|commit):/ { printf "%s%s", sep, $2; sep = "; " } END { print "" }' "$1"
}

# elapsed prints the seconds since $1 (a `date +%s` value) as 1m23s.
elapsed() { local s=$(($(date +%s) - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# at_exit CMD runs the shell command CMD when the script exits, however it
# exits (Ctrl-C included), after the commands added before it.
at_exit_cmds=()
at_exit() {
  at_exit_cmds+=("$1")
  trap 'for c in "${at_exit_cmds[@]}"; do eval "$c"; done' EXIT
  trap 'exit 130' INT TERM
}

# The benchmark rounds of compare.sh and serialize.sh: drift on a shared machine must hit every
# stage alike, so each binary is built first, then every round runs each benchmark once. new_run
# KIND makes $out, a new results/KIND/<stamp>/, and $bin for the binaries; any exit before
# keep_run removes both: half a measurement is none. It warns when other programs keep more than a
# quarter of the cores busy: every stage then runs slower by chance, and no ratio holds.
new_run() {
  local busy
  busy=$(busy_cores)
  if awk -v busy="$busy" -v cores="$(nproc)" 'BEGIN { exit !(busy > cores / 4) }'; then
    echo "${0##*/}: warning: other programs kept $busy of $(nproc) cores busy over the last second, so these" \
      "figures will be noisy. Close them or wait until they finish, then measure again." >&2
  fi
  mkdir -p "results/$1"
  until stamp=$(date -u +%Y%m%dT%H%M%SZ) && mkdir "results/$1/$stamp" 2>/dev/null; do sleep 1; done
  out=results/$1/$stamp bin=$(mktemp -d) kept=false run_start=$(date +%s)
  at_exit 'rm -rf "$bin"; $kept || { rm -rf "$out"; echo "${0##*/}: stopped before the last round; no results kept" >&2; }'
}

# busy_cores prints how many cores the machine kept busy over the last second, from /proc/stat (all
# but idle and iowait; steal too, the time the hypervisor gave to others), 0 where there is none. Not
# the load average: that remembers the last minute, and so, in check.sh, the check's own tests.
busy_cores() {
  local before now
  before=$(head -n 1 /proc/stat 2>/dev/null) || { echo 0; return; }
  sleep 1
  now=$(head -n 1 /proc/stat)
  awk -v cores="$(nproc)" -v a="$before" -v b="$now" 'BEGIN {
    split(a, x); split(b, y)
    for (i = 2; i <= 9; i++) total += y[i] - x[i]
    idle = y[5] - x[5] + y[6] - x[6]
    printf "%.1f", (total > 0 ? (total - idle) / total * cores : 0)
  }'
}

# keep_run keeps the run's results and points results/KIND/latest at them.
keep_run() {
  kept=true
  ln -sfn "$stamp" "${out%/*}/latest"
  printf '\r   %d rounds done in %s%40s\n' "$rounds" "$(elapsed "$run_start")" ''
}

# build_bench DIR... builds the test binary of each package folder DIR.
build_bench() { local dir; for dir in "$@"; do go test -c -o "$bin/${dir##*/}.test" "./$dir"; done; }

# run_bench DIR BENCH BENCHTIME FILE [LABEL] runs the benchmarks BENCH of package folder DIR once
# (build_bench's binary, in DIR as go test does), shows LABEL as round $round of $rounds, and
# appends the results to FILE. A benchmark that fails, panics or matches nothing stops the script.
run_bench() {
  local dir=$1 name=${1##*/} log=$bin/output.txt
  printf '\r   round %2d/%d  %-24s  elapsed %s ' "$round" "$rounds" "${5:-$name}" "$(elapsed "$run_start")"
  if ! (cd "$dir" && "$bin/$name.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.count 1 \
    -test.benchmem) > "$log" 2>&1; then
    printf '\n%s\n%s: the benchmarks of %s failed (output above)\n' "$(cat "$log")" "${0##*/}" "$dir" >&2
    exit 1
  fi
  if ! grep -qE '^Benchmark[^[:space:]]+[[:space:]]+[0-9]+[[:space:]]' "$log"; then
    printf '\n%s: no benchmark matched %s in %s; its benchmarks:\n' "${0##*/}" "$2" "$dir" >&2
    (cd "$dir" && "$bin/$name.test" -test.list '^Benchmark') >&2 || true
    exit 1
  fi
  grep -E '^(Benchmark|goos:|goarch:|pkg:|cpu:)' "$log" >> "$4"
}
