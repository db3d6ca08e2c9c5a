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
#   - lists NAME in local.work, the workspace file of your stages: a copy of go.work, plus
#     `go work use ./NAME`. Git ignores local.work, and NAME/ too (its .gitignore says *), so git
#     status, git add, git pull and switching branches never see your stages, and go.work is unchanged;
#   - runs go vet on the copy, which must pass before you change anything.
#
# The scripts read local.work whenever it exists. The go command reads it when GOWORK names it: in each
# terminal, in the repository's folder, run
#   export GOWORK=$PWD/local.work
# and `go test ./NAME`, `go run ./NAME` work as for any stage. --remove deletes the stage's folder and
# its line; with your last stage gone, local.work goes too (then `unset GOWORK`). Every run of this
# script also rebuilds local.work from go.work, so --list after a git pull brings it up to date.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

name= from=stage0-linear action=make
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=$2; shift ;;
    --remove) action=remove ;;
    --list) action=list ;;
    -h|--help) usage "$0"; exit 0 ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$name" ] || die "one NAME at a time (got $name and $1)"; name=${1%/} ;;
  esac
  shift
done

# mine prints the stages made here, one a line: the folders at the root
# whose go.mod has the "// origin:" line that this script writes.
mine() { grep -l '^// origin: ' -- */go.mod 2>/dev/null | sed 's|/go.mod$||' || true; }
origin_of() { sed -n 's|^// origin: \([^ ]*\).*|\1|p' "$1/go.mod"; }

# sync_workspace writes local.work, go.work and the stages made here, or
# removes it when there are none.
sync_workspace() {
  local list
  list=$(mine)
  if [ -z "$list" ]; then
    rm -f local.work local.work.sum
    unset GOWORK
    return
  fi
  cp go.work local.work
  # The checksums go.work.sum holds, so that nothing is fetched again.
  [ -f local.work.sum ] || [ ! -f go.work.sum ] || cp go.work.sum local.work.sum
  export GOWORK=$ROOT/local.work
  # shellcheck disable=SC2046 # stage names are single words
  go work use $(sed 's|^|./|' <<< "$list")
}

# replace_all replaces every occurrence of the literal string $2 by $3 in file $1.
replace_all() {
  local text
  text=$(awk -v old="$2" -v new="$3" '{
    out = ""; s = $0
    while ((i = index(s, old)) > 0) { out = out substr(s, 1, i - 1) new; s = substr(s, i + length(old)) }
    print out s
  }' "$1")
  printf '%s\n' "$text" > "$1"
}

list_stages() {
  local list d
  sync_workspace
  list=$(mine)
  [ -n "$list" ] || { echo "no stage made by new-stage.sh here"; return; }
  for d in $list; do echo "  $d from $(origin_of "$d")"; done
}

remove_stage() {
  [[ "$name" =~ ^[a-z][a-z0-9-]*$ ]] || die "--remove: '$name' is not a stage name"
  grep -qx -- "$name" <<< "$(mine)" ||
    die "--remove: $name was not made by new-stage.sh (no $name/go.mod with an origin line); nothing removed"
  [ -z "$(git ls-files -- "$name" 2>/dev/null)" ] || die "--remove: git tracks files in $name/; nothing removed"
  rm -rf -- "${ROOT:?}/$name"
  sync_workspace
  echo "removed $name: its folder, and its line in local.work"
}

make_stage() {
  # The name: a folder at the root that nothing else uses.
  [ -n "$name" ] || die "name the new stage: ./scripts/new-stage.sh NAME [--from STAGE] (--help for more)"
  [[ "$name" =~ ^[a-z][a-z0-9-]{0,39}$ && "$name" != *- ]] ||
    die "'$name' is not a valid name: use 1 to 40 lowercase letters, digits and dashes, starting with a letter"
  [[ ! "$name" =~ ^stage[0-9] ]] || die "'$name': names stageN-... belong to the project's stages; pick another"
  case "$name" in
    floor|common|scripts|peers|workshop|solutions|results|docs|bin) die "'$name' is a name the repository uses; pick another" ;;
  esac
  [ ! -e "$name" ] && [ ! -L "$name" ] || die "$name already exists; pick another name, or --remove $name if this script made it"
  local modules
  modules=$(go list -m -f '{{.Dir}}')
  ! grep -q "/$name\$" <<< "$modules" || die "'$name' is the folder name of a module of go.work; pick another"

  # The origin: a folder of the workspace whose main.go starts a stage.
  from=${from%/} from=${from#./}
  grep -qx -- "$ROOT/$from" <<< "$modules" ||
    die "--from $from: not a module of go.work; give the folder of a stage, such as stage1-index or workshop/quest6-cache"
  grep -qs 'api\.Main(' "$from/main.go" || die "--from $from: its main.go does not start a stage with api.Main"
  local old_module old_main
  old_module=$(awk '$1 == "module" { print $2; exit }' "$from/go.mod")
  old_main=$(sed -n 's/.*api\.Main("\([^"]*\)".*/\1/p' "$from/main.go" | head -n 1)
  [ -n "$old_module" ] && [ -n "$old_main" ] || die "--from $from: cannot read its module path or the name it gives api.Main"

  # From here on, an error or Ctrl-C undoes what was done.
  mkdir "$name"
  made=false
  at_exit '$made || { echo "new-stage.sh: $name not made; undoing" >&2; rm -rf -- "${ROOT:?}/$name"; sync_workspace; }'

  # Copy: the files git tracks, or for a stage made here, which git does
  # not track, all but what building and testing leave behind.
  if [ -n "$(git ls-files -- "$from" 2>/dev/null)" ]; then
    (cd "$from" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$name"
  else
    cp -Rp "$from/." "$name/"
    rm -f "$name/${from##*/}" "$name"/*.test "$name"/*.pprof "$name"/*.prof
  fi
  rm -f "$name/start_test.go" "$name"/start_*_test.go
  [ -f "$name/stage_test.go" ] || cp stage0-linear/stage_test.go "$name/stage_test.go"
  printf '# Made by scripts/new-stage.sh: git ignores this whole folder, this file included.\n*\n' > "$name/.gitignore"

  # Rename: module path, the replace of common (one level up now), the
  # origin line, api.Main's name, the package comment, import paths.
  go mod edit -module "example.com/userperf/$name" -replace example.com/userperf/common=../common "$name/go.mod"
  local mod
  mod=$(awk -v origin="$from" '
    /^\/\/ origin: / { blank = 1; next }
    blank && /^$/ { blank = 0; next }
    { blank = 0; print }
    /^go [0-9]/ && !done { print ""; print "// origin: " origin " (the stage this module started from; scripts/check.sh reads this line)"; done = 1 }
  ' "$name/go.mod")
  printf '%s\n' "$mod" > "$name/go.mod"
  replace_all "$name/main.go" "api.Main(\"$old_main\"" "api.Main(\"$name\""
  replace_all "$name/main.go" "// Command $old_main " "// Command $name "
  replace_all "$name/main.go" "package main" "//
// It began as a copy of $from, made by scripts/new-stage.sh.
package main"
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

  sync_workspace
  echo "== go vet ./$name"
  go vet "./$name"
  made=true

  local against base reference
  against=$(ask_stages against "$name")
  read -r base reference <<< "$against"
  [ "$base" != - ] || base=
  [ "$reference" != - ] || reference=
  echo
  echo "made $name/, a copy of $from, listed in local.work and kept out of git (git status shows nothing)."
  echo
  echo "Next, in the repository's folder:"
  printf '  %-42s %s\n' \
    "export GOWORK=\$PWD/local.work" "once in each terminal: the go command sees your stage" \
    "go test ./$name" "the shared suites; a side quest's starting point fails them until fixed" \
    "./scripts/profile.sh $name" "where the time goes" \
    "\$EDITOR $name/*.go" "make your change" \
    "./scripts/check.sh $name" "the verdict: vet, suites, race detector, fuzz seeds, speed" \
    "./scripts/compare.sh $(echo $base $name $reference)" "a longer comparison" \
    "./scripts/new-stage.sh --remove $name" "when you are done: the tree is as it was"
}

case "$action" in
  list) list_stages ;;
  remove) [ -n "$name" ] || die "--remove needs the name of a stage this script made"; remove_stage ;;
  make) make_stage ;;
esac
