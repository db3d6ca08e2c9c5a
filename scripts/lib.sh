# Shared by the scripts in this folder; sourced, not run.

# The repository root, whatever the caller's working directory.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ask_stages runs scripts/cmd/stages, the one place that knows the stages
# and their folders (a stage is any module of go.work with a stage_test.go).
ask_stages() {
  (cd "$ROOT" && go run ./scripts/cmd/stages "$@")
}

# stages_and_floor prints every stage, then the floor, one a line: the
# default of the scripts that measure, and the order of every table.
stages_and_floor() {
  ask_stages list
}

# stages prints every stage, without the floor.
stages() {
  local list
  list=$(ask_stages list) || return
  awk '$0 != "floor"' <<< "$list"
}

# stage_dirs prints the package folder of each stage named, one a line
# (floor: floor), or fails, printing nothing, if a name is unknown.
stage_dirs() {
  ask_stages dir "$@"
}

# stage_servers prints the main package of each named stage's server.
stage_servers() {
  ask_stages server "$@"
}

# usage prints the comment block at the top of script $1, without the #:
# what --help shows.
usage() {
  awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$1"
}

# command_line prints its arguments as a command line that a shell reads
# back as the same words: a word with special characters in single quotes.
command_line() {
  local line= word q="'"
  for word in "$@"; do
    if ! [[ "$word" =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
      word="'${word//$q/$q\\$q$q}'"
    fi
    line+=" $word"
  done
  echo "${line# }"
}

# machine_info prints, as "key: value" lines, what a result was measured on
# and how: every result file starts with it. The commit is followed by
# "(with uncommitted changes)" when the measured code differs from it.
machine_info() {
  local cpu commit
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
  commit=$(ask_stages commit) || commit=none
  echo "machine-cpu: ${cpu:-unknown}"
  echo "machine-cores: $(nproc)"
  echo "machine-memory: $(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
  echo "machine-os: $(uname -sr)"
  echo "go-version: $(go env GOVERSION)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit"
  echo "command: $*"
}

# measured_on prints the header of result file $1 in one line, for the
# last line of a script's output.
measured_on() {
  awk -F': ' '/^(machine-cpu|machine-cores|go-version|date|commit):/ { printf "%s%s", sep, $2; sep = "; " } END { print "" }' "$1"
}

# elapsed prints the seconds since $1 (a `date +%s` value) as 1m23s.
elapsed() {
  local s=$(($(date +%s) - $1))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}
