#!/usr/bin/env bash
# new-stage.sh: a stage of your own, copied from an existing one, to change and check.
#
#   ./scripts/new-stage.sh mystage                                a copy of stage0-linear, in mystage/
#   ./scripts/new-stage.sh mystage --from stage2-noclone          a copy of another stage
#   ./scripts/new-stage.sh mycache --from workshop/quest6-cache   a side quest's starting point
#   ./scripts/new-stage.sh --list                                 the stages this script made
#   ./scripts/new-stage.sh --remove mystage                       delete one and undo what made it
#
# NAME is 1 to 40 lowercase letters, digits and dashes, starting with a letter. It must not be a
# folder that exists, a name of the project's stages (stageN-...), or the folder name of any module
# of go.work: the scripts know a stage by its folder name.
#
# What it does:
#   - copies the origin's files into NAME/: the files git tracks (all files, for a stage this script
#     made), except README.md, which becomes a page for your notes (the origin's chapter stays where
#     it is), and start_test.go and start_*_test.go, a side quest's tests of its own starting point;
#     a copy without a stage_test.go gets stage0-linear's, which runs the shared suites and benchmarks;
#   - renames what must be renamed: the module path in go.mod, the name main.go gives api.Main, the
#     package comment, and import paths into the origin; and records the origin in a
#     "// origin:" line of go.mod, from which check.sh picks what to compare the stage with;
#   - registers NAME in go.work with `go work use`, so the go command and the scripts see it;
#   - runs go vet on the copy, which must pass before you change anything.
#
# How your stage stays out of commits. NAME/ is added to .git/info/exclude, git's own ignore list,
# which is never committed. go.work, which now lists NAME, is marked with
# `git update-index --skip-worktree`: git status, git diff, git add and git commit -a pass it by, and
# git refuses to switch branches or pull a commit that changes go.work while the mark is on (remove
# your stages first). A second, untracked workspace file would not do: the go command reads exactly
# one go.work. If go.work has changes of its own that are not committed, the script refuses to hide
# them. --remove undoes all three steps; when the last stage made here is gone, the mark comes off
# and git status shows what it showed before.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

die() { echo "new-stage.sh: $*" >&2; exit 2; }

name= from=stage0-linear action=make
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=$2; shift ;;
    --remove) action=remove ;;
    --list) action=list ;;
    -h|--help) awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$name" ] || die "one NAME at a time (got $name and $1)"; name=${1%/} ;;
  esac
  shift
done

# Git is how a learner's stage is kept out of commits; a copy of the
# repository without .git still gets a working stage, and a warning.
in_git=false
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  in_git=true
  exclude=$(git rev-parse --git-path info/exclude)
fi

# marker is the comment line that .git/info/exclude holds above the line
# that ignores a stage made here: it names the stage and its origin.
marker_prefix='# new-stage.sh: '
made_here() { # NAME: prints the origin if NAME was made here
  $in_git && [ -f "$exclude" ] || return 1
  awk -v p="$marker_prefix$1 from " 'index($0, p) == 1 { print substr($0, length(p) + 1); found = 1 } END { exit !found }' "$exclude"
}
made_count() {
  $in_git && [ -f "$exclude" ] || { echo 0; return; }
  awk -v p="$marker_prefix" 'index($0, p) == 1 { n++ } END { print n + 0 }' "$exclude"
}
is_skip_worktree() { $in_git && [ "$(git ls-files -v -- go.work | cut -c1)" = S ]; }

# drop_marker removes NAME's two lines from the exclude file.
drop_marker() {
  $in_git && [ -f "$exclude" ] || return 0
  local tmp
  tmp=$(mktemp)
  awk -v p="$marker_prefix$1 from " -v line="/$1/" '
    index($0, p) == 1 { skip = 1; next }
    skip && $0 == line { skip = 0; next }
    { skip = 0; print }' "$exclude" > "$tmp"
  cat "$tmp" > "$exclude"
  rm -f "$tmp"
}

# in_workspace reports whether folder $1 (relative to the root) is a module of go.work.
in_workspace() {
  local dirs
  dirs=$(go list -m -f '{{.Dir}}')
  awk -v d="$ROOT/$1" '$0 == d { found = 1 } END { exit !found }' <<< "$dirs"
}

# unmark_go_work takes the skip-worktree mark off go.work once no stage made
# here is left, and says so if go.work still differs from the committed one.
unmark_go_work() {
  $in_git || return 0
  if [ "$(made_count)" -eq 0 ] && is_skip_worktree; then
    git update-index --no-skip-worktree -- go.work
    if ! git diff --quiet -- go.work; then
      echo "new-stage.sh: note: go.work differs from the committed one in lines this script did not write:" >&2
      git --no-pager diff -- go.work >&2
    fi
  fi
}

# replace_all replaces every occurrence of the literal string $2 by $3 in file $1.
replace_all() {
  local tmp
  tmp=$(mktemp)
  awk -v old="$2" -v new="$3" '{
    out = ""; s = $0
    while ((i = index(s, old)) > 0) { out = out substr(s, 1, i - 1) new; s = substr(s, i + length(old)) }
    print out s
  }' "$1" > "$tmp"
  cat "$tmp" > "$1"
  rm -f "$tmp"
}

list_stages() {
  if ! $in_git || [ "$(made_count)" -eq 0 ]; then
    echo "no stage made by new-stage.sh here"
    return
  fi
  awk -v p="$marker_prefix" 'index($0, p) == 1 { print "  " substr($0, length(p) + 1) }' "$exclude"
}

remove_stage() {
  [[ "$name" =~ ^[a-z][a-z0-9-]*$ ]] || die "--remove: '$name' is not a stage name"
  if $in_git; then
    made_here "$name" >/dev/null ||
      die "--remove: $name was not made by new-stage.sh (.git/info/exclude has no mark for it); nothing removed"
    [ -z "$(git ls-files -- "$name")" ] || die "--remove: git tracks files in $name/; nothing removed"
  else
    grep -q '^// origin: ' "$name/go.mod" 2>/dev/null ||
      die "--remove: $name/go.mod has no origin line, so new-stage.sh did not make it; nothing removed"
  fi
  if in_workspace "$name"; then
    go work edit -dropuse "./$name"
  fi
  rm -rf -- "${ROOT:?}/$name"
  drop_marker "$name"
  unmark_go_work
  echo "removed $name: its folder, its line in go.work and its line in .git/info/exclude"
}

make_stage() {
  # The name: a folder at the root that nothing else uses.
  [ -n "$name" ] || die "name the new stage: ./scripts/new-stage.sh NAME [--from STAGE] (--help for more)"
  [[ "$name" =~ ^[a-z][a-z0-9-]{0,39}$ && "$name" != *- ]] ||
    die "'$name' is not a valid name: use 1 to 40 lowercase letters, digits and dashes, starting with a letter"
  [[ ! "$name" =~ ^stage[0-9] ]] || die "'$name': names stageN-... belong to the project's stages; pick another"
  case "$name" in
    floor|common|scripts|workshop|solutions|results|docs|bin) die "'$name' is a name the repository uses; pick another" ;;
  esac
  [ ! -e "$name" ] && [ ! -L "$name" ] || die "$name already exists; pick another name, or --remove $name if this script made it"
  local modules
  modules=$(go list -m -f '{{.Dir}}')
  while IFS= read -r dir; do
    [ "$(basename "$dir")" != "$name" ] || die "'$name' is the folder name of ${dir#"$ROOT"/}, a module of go.work; pick another"
  done <<< "$modules"

  # The origin: a folder of the workspace whose main.go starts a stage.
  from=${from%/} from=${from#./}
  [ -f "$from/go.mod" ] || die "--from $from: no module there; give the folder of a stage, such as stage1-index or workshop/quest6-cache"
  in_workspace "$from" || die "--from $from: not a module of go.work"
  grep -qs 'api\.Main(' "$from/main.go" || die "--from $from: its main.go does not start a stage with api.Main"
  local old_module old_main
  old_module=$(awk '$1 == "module" { print $2; exit }' "$from/go.mod")
  old_main=$(sed -n 's/.*api\.Main("\([^"]*\)".*/\1/p' "$from/main.go" | head -n 1)
  [ -n "$old_module" ] && [ -n "$old_main" ] || die "--from $from: cannot read its module path or the name it gives api.Main"

  local hide=false
  if $in_git; then
    if ! is_skip_worktree && ! git diff --quiet -- go.work; then
      die "go.work has changes that are not committed; commit them first: this script hides go.work from git while your stage exists"
    fi
    hide=true
  else
    echo "new-stage.sh: warning: this is not a git repository, so nothing keeps $name out of a commit" >&2
  fi

  # From here on, an error or Ctrl-C undoes what was done. The flags are
  # global: the EXIT trap runs after this function's locals are gone.
  done_copy=false done_use=false done_mark=false done_skip=false
  undo() {
    trap - EXIT INT TERM
    echo "new-stage.sh: $name not made; undoing" >&2
    if $done_use; then go work edit -dropuse "./$name" || true; fi
    if $done_copy; then rm -rf -- "${ROOT:?}/$name"; fi
    if $done_mark; then drop_marker "$name"; fi
    if $done_skip; then unmark_go_work; fi
  }
  trap 'status=$?; undo; exit $((status ? status : 1))' EXIT
  trap 'exit 130' INT TERM

  # Copy. A stage made here is untracked, so all of its files are copied
  # except what building and testing leave behind.
  mkdir "$name"
  done_copy=true
  if $in_git && ! made_here "$from" >/dev/null; then
    local list f rel
    list=$(mktemp)
    git ls-files -z -- "$from" > "$list"
    while IFS= read -r -d '' f; do
      [ -e "$f" ] || continue # deleted in the working tree
      rel=${f#"$from"/}
      mkdir -p "$name/$(dirname "$rel")"
      cp -p "$f" "$name/$rel"
    done < "$list"
    rm -f "$list"
  else
    cp -Rp "$from/." "$name/"
    rm -f "$name/$(basename "$from")" "$name"/*.test "$name"/*.pprof "$name"/*.prof
  fi
  rm -f "$name/start_test.go" "$name"/start_*_test.go
  [ -f "$name/stage_test.go" ] || cp stage0-linear/stage_test.go "$name/stage_test.go"

  # Rename: module path, the replace of common (one level up now), api.Main's
  # name, the package comment, import paths into the origin.
  go mod edit -module "example.com/userperf/$name" -replace example.com/userperf/common=../common "$name/go.mod"
  local tmp
  tmp=$(mktemp)
  awk -v origin="$from" '
    /^\/\/ origin: / { blank = 1; next }
    blank && /^$/ { blank = 0; next }
    { blank = 0; print }
    /^go [0-9]/ && !done { print ""; print "// origin: " origin " (the stage this module started from; scripts/check.sh reads this line)"; done = 1 }
  ' "$name/go.mod" > "$tmp"
  cat "$tmp" > "$name/go.mod"
  replace_all "$name/main.go" "api.Main(\"$old_main\"" "api.Main(\"$name\""
  replace_all "$name/main.go" "// Command $old_main " "// Command $name "
  awk -v from="$from" '/^package main/ && !done { print "//"; print "// It began as a copy of " from ", made by scripts/new-stage.sh."; done = 1 } { print }' "$name/main.go" > "$tmp"
  cat "$tmp" > "$name/main.go"
  rm -f "$tmp"
  while IFS= read -r -d '' f; do
    replace_all "$f" "\"$old_module/" "\"example.com/userperf/$name/"
    replace_all "$f" "\"$old_module\"" "\"example.com/userperf/$name\""
  done < <(find "$name" -name '*.go' -print0)
  grep -q "api.Main(\"$name\"" "$name/main.go" || die "could not rename the stage in $name/main.go"
  cat > "$name/README.md" <<EOF
# $name

A stage of your own, made by \`./scripts/new-stage.sh $name --from $from\`: a copy of \`$from\`
(whose chapter is [../$from/README.md](../$from/README.md)). Git ignores this folder; write your
notes here: what the profile showed, what you changed, what the check said.
EOF

  # Keep it out of commits, then register it.
  if $hide; then
    { echo "$marker_prefix$name from $from"; echo "/$name/"; } >> "$exclude"
    done_mark=true
    if ! is_skip_worktree; then
      git update-index --skip-worktree -- go.work
      done_skip=true
    fi
  fi
  go work use "./$name"
  done_use=true

  echo "== go vet ./$name"
  go vet "./$name"

  trap - EXIT INT TERM
  # What to compare with: the origin, or for a side quest's starting point,
  # which is no stage of its own, the stage it was built on.
  local base
  base=$(basename "$from")
  if [ ! -f "$from/stage_test.go" ]; then
    base=$(sed -n 's|^// origin: \([^ ]*\).*|\1|p' "$from/go.mod")
    base=$(basename "${base:-stage0-linear}")
  fi
  echo
  local kept=
  if $hide; then kept=" and kept out of git (git status shows nothing)"; fi
  echo "made $name/, a copy of $from, registered in go.work$kept."
  echo
  echo "Next:"
  local suites="the shared suites; they pass before you change anything"
  [ -f "$from/stage_test.go" ] || suites="the shared suites; a side quest's starting point fails them until it is fixed"
  local next=(
    "go test ./$name" "$suites"
    "./scripts/profile.sh $name" "where the time goes"
    "\$EDITOR $name/*.go" "make your change"
    "./scripts/check.sh $name" "the verdict: vet, suites, race detector, fuzz seeds, speed"
    "./scripts/compare.sh $base $name" "a longer comparison"
    "./scripts/new-stage.sh --remove $name" "when you are done: the tree is as it was"
  )
  local k width=0
  for ((k = 0; k < ${#next[@]}; k += 2)); do
    [ ${#next[k]} -le "$width" ] || width=${#next[k]}
  done
  for ((k = 0; k < ${#next[@]}; k += 2)); do
    printf '  %-*s   %s\n' "$width" "${next[k]}" "${next[k + 1]}"
  done
}

case "$action" in
  list) list_stages ;;
  remove) [ -n "$name" ] || die "--remove needs the name of a stage this script made"; remove_stage ;;
  make) make_stage ;;
esac
