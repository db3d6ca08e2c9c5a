#!/usr/bin/env bash
# handin.sh: your workshop results in one file, to hand to the instructor.
#
#   ./scripts/handin.sh "Ada Lovelace"
#
# For each stage you made with new-stage.sh (ex1 to ex5, mycache, ...), it takes the verdict and the
# speed of your last ./scripts/check.sh of it, and checks it again first if you changed it since (or
# never checked it). The speed is the check's: ListByRole against the stage you started from and
# against the exercise's reference, measured on this machine, so that the room compares ratios, never
# one machine's times with another's. It writes results/handin/<name>.txt: your name, the machine,
# each stage's verdict and results. Send that one file to the instructor as the room agreed: the
# chat, a shared folder or a USB stick. The instructor runs ./scripts/room.sh on everyone's files.
source "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] && [[ "$1" =~ ^[[:alnum:]][[:alnum:]\ ._-]{0,39}$ ]] ||
  die "give your name, as the room should see it: ./scripts/handin.sh \"Ada Lovelace\" (up to 40 letters, digits, spaces, dots, dashes)"
who=$1
file=results/handin/$(tr "[:upper:] " "[:lower:]-" <<< "$who").txt
mapfile -t mine < <(./scripts/new-stage.sh --list | awk '$2 == "from" { print $1 }')
[ ${#mine[@]} -gt 0 ] || die "no stage made with ./scripts/new-stage.sh here: nothing to hand in"

for s in "${mine[@]}"; do
  kept=results/check/$s/verdict.txt
  if [ ! -f "$kept" ] || [ -n "$(find "$s" -newer "$kept" -print -quit)" ]; then
    echo "== $s: not checked since it last changed: ./scripts/check.sh $s"
    ./scripts/check.sh "$s" || true # a failed check is handed in as failed
  fi
done

mkdir -p results/handin
{
  echo "participant: $who"
  machine_info
  for s in "${mine[@]}"; do echo "verdict-$s: $(cat "results/check/$s/verdict.txt")"; done
  for s in "${mine[@]}"; do
    for f in "results/check/$s"/speed-*.txt; do
      [ -f "$f" ] || continue # a failed check measured nothing
      role=${f##*/speed-}
      printf 'exercise: %s\nrole: %s\n' "$s" "${role%.txt}"
      grep '^Benchmark' "$f"
    done
  done
} > "$file"
echo
grep '^verdict-' "$file" | sed 's/^verdict-/  /'
echo "wrote $file: send this one file to the instructor"
