# Shared by the scripts in this folder; sourced, not run.

# The repository root, whatever the caller's working directory.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# stages prints the stage folders listed in go.work, in order.
stages() {
  (cd "$ROOT" && go list -m -f '{{.Dir}}' | xargs -n1 basename | grep '^stage' | sort)
}

# stages_and_floor prints the stages, then the floor: the default of the
# scripts that measure, which show every stage next to the limit of its path.
stages_and_floor() {
  stages
  echo floor
}

# machine_info prints, as "key: value" lines, what a result was measured on
# and how: every result file starts with it.
machine_info() {
  local cpu
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
  echo "machine-cpu: ${cpu:-unknown}"
  echo "machine-cores: $(nproc)"
  echo "machine-memory: $(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
  echo "machine-os: $(uname -sr)"
  echo "go-version: $(go env GOVERSION)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "command: $*"
}

# elapsed prints the seconds since $1 (a `date +%s` value) as 1m23s.
elapsed() {
  local s=$(($(date +%s) - $1))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}
