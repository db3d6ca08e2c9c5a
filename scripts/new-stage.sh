#!/usr/bin/env bash
# new-stage.sh: a stage of your own, copied from an existing one, to change and check.
#
#   ./scripts/new-stage.sh mystage                                a copy of stage0-linear, in mystage/
#   ./scripts/new-stage.sh mystage --from stage2-noclone          a copy of another stage
#   ./scripts/new-stage.sh mycache --from workshop/quest6-cache   a side quest's starting point
#   ./scripts/new-stage.sh --list                                 the stages this script made
#   ./scripts/new-stage.sh --remove mystage                       delete one and undo what made it
#
# NAME is 1 to 40 lowercase letters, digits and dashes, starting with a letter, and not the folder name
# of a module of go.work or of the project's stages (stageN-...): the scripts know a stage by its folder.
#
# It copies the origin's files into NAME/ (those git tracks, or all, for a stage made here), except
# README.md, which becomes a page for your notes, and the origin's own tests that the exercise's reference
# does not have, or has in another version (they test what the exercise changes, such as a side quest's
# bug); a copy without a stage_test.go gets stage0-linear's. It renames the
# module, the name main.go gives api.Main and import paths into the origin, records the origin in a
# "// origin:" line of go.mod (check.sh compares with it), and runs go vet, which must pass.
#
# Your stages are listed in local.work, a copy of go.work plus `go work use ./NAME` for each; git
# ignores it, and NAME/ too (its .gitignore says *), so git status, pull and checkout never see them and
# go.work is never changed. The scripts read local.work whenever it exists; the go command reads it
# once GOWORK names it: in each terminal, in the repository's folder,
#   export GOWORK=$PWD/local.work
# and `go test ./NAME`, `go run ./NAME` work as for any stage. With your last stage removed,
# local.work goes too (then `unset GOWORK`). Every run rebuilds local.work from go.work: after a git
# pull that changed go.work, run --list.
source "$(dirname "$0")/lib.sh"

name= from=stage0-linear action=make
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a stage"; from=$2; shift ;;
    --remove) action=remove ;;
    --list) action=list ;;
    -*) die "unknown option $1 (--help lists them)" ;;
    *) [ -z "$name" ] || die "one NAME at a time (got $name and $1)"; name=${1%/} ;;
  esac
  shift
done

# mine prints the stages made here: the folders at the root whose go.mod
# has the origin line that this script writes.
mine() { grep -l '^// origin: ' -- */go.mod 2>/dev/null | sed 's|/go.mod$||' || true; }

# sync_workspace writes local.work (go.work and the stages made here), or
# removes it when there are none.
sync_workspace() {
  local list
  list=$(mine)
  if [ -z "$list" ]; then
    rm -f local.work local.work.sum
    return
  fi
  cp go.work local.work
  [ -f local.work.sum ] || [ ! -f go.work.sum ] || cp go.work.sum local.work.sum # nothing to fetch again
  # shellcheck disable=SC2046 # stage names are single words
  GOWORK=$ROOT/local.work go work use $(sed 's|^|./|' <<< "$list")
}

if [ $action = list ]; then
  sync_workspace
  [ -n "$(mine)" ] || { echo "no stage made by new-stage.sh here"; exit 0; }
  for d in $(mine); do echo "  $d from $(sed -n 's|^// origin: \([^ ]*\).*|\1|p' "$d/go.mod")"; done
  exit 0
fi
if [ $action = remove ]; then
  [[ "$name" =~ ^[a-z][a-z0-9-]*$ ]] || die "--remove needs the name of a stage this script made"
  grep -qx -- "$name" <<< "$(mine)" ||
    die "--remove: $name was not made by new-stage.sh (no $name/go.mod with an origin line); nothing removed"
  [ -z "$(git ls-files -- "$name" 2>/dev/null)" ] || die "--remove: git tracks files in $name/; nothing removed"
  rm -rf -- "${ROOT:?}/$name"
  sync_workspace
  echo "removed $name: its folder, and its line in local.work"
  exit 0
fi

# The name: a folder at the root that nothing else uses.
[ -n "$name" ] || die "name the new stage: ./scripts/new-stage.sh NAME [--from STAGE] (--help for more)"
[[ "$name" =~ ^[a-z][a-z0-9-]{0,39}$ && "$name" != *- && ! "$name" =~ ^stage[0-9] ]] ||
  die "'$name' is not a valid name: use 1 to 40 lowercase letters, digits and dashes, starting with a letter, not stageN"
case "$name" in
  floor|common|scripts|peers|workshop|solutions|results|docs|bin) die "'$name' is a name the repository uses; pick another" ;;
esac
[ ! -e "$name" ] && [ ! -L "$name" ] || die "$name already exists; pick another name, or --remove $name if this script made it"
modules=$(go list -m -f '{{.Dir}}')
! grep -q "/$name\$" <<< "$modules" || die "'$name' is the folder name of a module of go.work; pick another"

# The origin: a folder of the workspace whose main.go starts a stage.
from=${from%/} from=${from#./}
grep -qx -- "$ROOT/$from" <<< "$modules" ||
  die "--from $from: not a module of go.work; give the folder of a stage, such as stage1-index or workshop/quest6-cache"
old_module=$(awk '$1 == "module" { print $2; exit }' "$from/go.mod")
old_main=$(sed -n 's/.*api\.Main("\([^"]*\)".*/\1/p' "$from/main.go" 2>/dev/null | head -n 1)
[ -n "$old_main" ] || die "--from $from: its main.go does not start a stage with api.Main(\"NAME\", ...)"

# From here on, an error or Ctrl-C undoes what was done.
mkdir "$name"
made=false
at_exit '$made || { echo "new-stage.sh: $name not made; undoing" >&2; rm -rf -- "${ROOT:?}/$name"; sync_workspace; }'
if [ -n "$(git ls-files -- "$from" 2>/dev/null)" ]; then
  (cd "$from" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$name"
else # a stage made here, which git does not track: all but build and test leftovers
  cp -Rp "$from/." "$name/"
  rm -f "$name/${from##*/}" "$name"/*.test "$name"/*.pprof "$name"/*.prof
fi
[ -f "$name/stage_test.go" ] || cp stage0-linear/stage_test.go "$name/stage_test.go"
printf '# Made by scripts/new-stage.sh: git ignores this whole folder, this file included.\n*\n' > "$name/.gitignore"

# The module and its origin; the replace of common is one level up now.
go mod edit -module "example.com/userperf/$name" -replace example.com/userperf/common=../common "$name/go.mod"
mod=$(grep -v '^// origin: ' "$name/go.mod")
printf '%s\n\n// origin: %s (the stage this module started from; scripts/check.sh reads this line)\n' "$mod" "$from" > "$name/go.mod"
# Rename the stage, its package comment and import paths into the origin
# (a regular expression: the dots of the old names match themselves too).
find "$name" -name '*.go' -exec sed -i -e "s|api\.Main(\"$old_main\"|api.Main(\"$name\"|" \
  -e "s|^// Command $old_main |// Command $name |" -e "s|\"$old_module\([/\"]\)|\"example.com/userperf/$name\1|g" {} +
grep -q "api.Main(\"$name\"" "$name/main.go" || die "could not rename the stage in $name/main.go"
cat > "$name/README.md" <<EOF
# $name

A stage of your own, made by \`./scripts/new-stage.sh $name --from $from\`: a copy of \`$from\`
(whose chapter is [../$from/README.md](../$from/README.md)). Git ignores this folder; write your
notes here: what the profile showed, what you changed, what the check said.
EOF

sync_workspace
export GOWORK=$ROOT/local.work
read -r base reference <<< "$(ask_stages against "$name")"
# The copy keeps the origin's own tests that still hold once the exercise is solved: those its
# reference has too, unchanged. The rest test what the exercise changes (stage 4's chunks and its
# list encoder in a copy meant to encode once, a side quest's bug), and would fail a right answer.
if [ "$reference" != - ]; then
  refdir=$(ask_stages dir "$reference")
  for t in "$name"/*_test.go; do
    t=${t##*/}
    if [ "$t" = stage_test.go ] || cmp -s "$from/$t" "$refdir/$t"; then continue; fi
    why="$reference has no such test"
    [ ! -f "$refdir/$t" ] || why="$reference's differs, since it tests what the exercise changes"
    rm "$name/$t" && echo "   left out $t: $why"
  done
fi
echo "== go vet ./$name"
go vet "./$name"
made=true
printf '\nmade %s/, a copy of %s, listed in local.work and kept out of git (git status shows nothing).\n\n' "$name" "$from"
echo "Next, in the repository's folder:"
printf '  %-50s %s\n' \
  "export GOWORK=\$PWD/local.work" "once in each terminal: the go command sees your stage" \
  "go test ./$name" "the shared suites (a side quest's start fails them until fixed)" \
  "./scripts/profile.sh $name" "where the time goes" \
  "\$EDITOR $name/*.go" "make your change" \
  "./scripts/check.sh $name" "the verdict: vet, suites, race detector, fuzz seeds, speed" \
  "./scripts/compare.sh $(echo ${base#-} "$name" ${reference#-})" "a longer comparison" \
  "./scripts/new-stage.sh --remove $name" "when you are done: the tree is as it was"
