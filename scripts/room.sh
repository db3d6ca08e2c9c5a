#!/usr/bin/env bash
# room.sh: the workshop's room in one table, from everyone's file of ./scripts/handin.sh.
#
#   ./scripts/room.sh handins/*.txt
#
# A row per participant: the machine, then per stage (ex1 to ex5, mycache, ...) either "WRONG: <the
# check that failed>", whatever its speed, or "ok" with its speed against the stage it started from
# (vs start) and against the exercise's reference (vs ref), and "(noisy)" if the check said its runs
# spread too widely to tell. Each ratio divides two times measured on
# the participant's own machine: laptops are never compared by their times, and no p-value is computed
# across machines. Then the room's median and spread of each ratio per exercise, right answers only.
# Writes results/room/table.txt and the chart results/room/room.svg, under the current folder.
source "$(dirname "$0")/lib.sh"
cd "$OLDPWD" # back where it was run: the hand-in files are here, and results/room goes here

[ $# -gt 0 ] || die "name the hand-in files: ./scripts/room.sh handins/*.txt"
GOWORK=${GOWORK:-$ROOT/go.work} go run "$ROOT/scripts/cmd/report" room "$@"
