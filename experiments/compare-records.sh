#!/usr/bin/env bash
# Do two records agree? Compares the verdicts of two sets of records (directories laid out as docs/results/: one
# NAME/record.json per experiment), claim by claim, on their outcome (held, failed, inconclusive), and prints each
# claim that differs and, per experiment and in all, how many of the claims both hold agree. Two record.sh --short
# passes on the same commit should agree on at least 95% of their verdicts: a verdict that flips between passes
# measures the day, not the server.
#
# Usage: experiments/compare-records.sh DIR_A DIR_B   (e.g. a copy of docs/results/ from each pass)
# Exit status: 0 when 95% or more agree, 1 when fewer do, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
if [ $# -ne 2 ]; then
  echo "compare-records.sh: expected two record directories, got $#" >&2
  exit 2
fi
for dir in "$1" "$2"; do
  [ -d "$dir" ] || { echo "compare-records.sh: '$dir' is not a directory" >&2; exit 2; }
done
require_tools jq

# outcomes DIR NAME: "claim<TAB>outcome" lines of DIR/NAME/record.json (older records: derived as the docs do)
outcomes() {
  jq -r '.verdicts[] | [.claim, (.outcome // (if (.result != "true" and .result != "false") then "inconclusive"
      elif ((.rounds // 0) >= 2) then (if .heldRounds == .rounds then "held"
        elif .heldRounds == 0 or (.goal | startswith("every round")) then "failed" else "inconclusive" end)
      elif .result == "true" then "held" else "failed" end))] | @tsv' "$1/$2/record.json"
}

total=0
agree=0
printf '%-24s %s\n' experiment "agree"
for record in "$1"/*/record.json; do
  name=$(basename "$(dirname "$record")")
  [ -f "$2/$name/record.json" ] || { echo "$name: only in $1"; continue; }
  n=0; same=0
  while IFS=$'\t' read -r claim a b; do
    n=$((n + 1))
    if [ "$a" = "$b" ]; then same=$((same + 1)); else echo "  differs: $name: $claim: $a / $b"; fi
  done < <(join -t $'\t' <(outcomes "$1" "$name" | sort -t $'\t' -k1,1) <(outcomes "$2" "$name" | sort -t $'\t' -k1,1))
  printf '%-24s %d of %d\n' "$name" "$same" "$n"
  total=$((total + n)); agree=$((agree + same))
done
echo "in all: $agree of $total verdicts agree ($(calc 'a * 100 / b' "$agree" "$total")%)"
[ "$total" -gt 0 ] && holds "$agree * 100" '>=' "95 * $total"
