#!/usr/bin/env bash
# Records every figure the docs quote, on the code as it is: runs each experiment (and bench) with its default
# settings, one after another, keeps each one's record under docs/results/NAME/ (record.json: commit, date, machine,
# JDK, node, wrk, load before and after, every round, median, min and max, every verdict with its goal; its charts;
# output.txt, what it printed), then renders the docs' generated tables from them (`loan-runtime docs`).
#
# Usage: experiments/record.sh [--short] [EXPERIMENT...]
#   EXPERIMENT  01 ... 18 or bench (or a full name, 09-request-stages); all of them when none is given
#   --short     each experiment's quick pass (about 75 minutes in all on 2 cores; the full record takes three and a half hours)
# It first checks that the machine is idle (other work slows every figure): it waits up to 2 minutes for the CPUs to
# be 90% idle, then goes on and says so. An experiment that fails keeps its earlier record; the exit status is 1.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

SHORT=()
names=()
for arg in "$@"; do
  case $arg in
    --short) SHORT=(--short) ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "record.sh: unknown option '$arg' (allowed: --short, --help)" >&2; exit 2 ;;
    *) names+=("$arg") ;;
  esac
done

# The experiments, in the order they run: every NN-name.sh, then bench.
mapfile -t all < <(find experiments -maxdepth 1 -name '[0-9][0-9]-*.sh' -printf '%f\n' | sort | sed 's/\.sh$//'; echo bench)
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
scripts=()
for name in "${names[@]}"; do
  match=$(printf '%s\n' "${all[@]}" | grep -E "^${name}(-|$)" || true)
  if [ "$(echo "$match" | grep -c .)" -ne 1 ]; then
    echo "record.sh: '$name' names no experiment (one of: ${all[*]})" >&2
    exit 2
  fi
  scripts+=("$match")
done

require_tools jq
build_once
echo "record: ${scripts[*]} (${SHORT[*]:-full}) on commit $(git rev-parse --short HEAD)"
if [ "$(_code_dirty)" = true ]; then
  echo "record: the code differs from the commit; the records will say so (commit it first for a record to keep)"
fi

# Experiments 06 and 10 restart clusters with SIGHUP; a process that ignores it (started under nohup) passes that on
# to every child, and their rolling restarts never begin.
ignored_mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
sighup_ignored=$(( ${ignored_mask:+0x$ignored_mask} + 0 & 1 ))
if [ "$sighup_ignored" = 1 ] && printf '%s\n' "${scripts[@]}" | grep -q '^\(06\|10\)-'; then
  echo "record: SIGHUP is ignored here (started under nohup?), so experiments 06 and 10 could not restart their" \
    "clusters; start record.sh without nohup, e.g. 'setsid experiments/record.sh > record.log 2>&1 &'" >&2
  exit 2
fi

# Idle first: a busy machine slows every figure, and not every one alike.
idle=$(cpu_idle_percent 2)
waited=0
while [ "$idle" -lt 90 ] && [ "$waited" -lt 120 ] && [ "${CI:-}" != true ]; do
  [ "$waited" -eq 0 ] && { echo "record: the CPUs are only $idle% idle; the busiest processes:";
    ps -eo pid,pcpu,comm --sort=-pcpu | sed -n '2,6p'; echo "record: waiting up to 2 minutes for them to settle"; }
  idle=$(cpu_idle_percent 5)
  waited=$((waited + 5))
done
if [ "$idle" -lt 90 ]; then
  echo "record: NOT IDLE: the CPUs were $idle% idle at the start; every record says so (cpuIdleBeforePercent)"
else
  echo "record: the machine is idle ($idle% over the last seconds)"
fi

# heartbeat NAME: copies its input to its output, and says on stderr (not in the record's output.txt) that NAME is
# still running whenever it has been silent for 15 s: some experiments measure for minutes without a line.
heartbeat() {
  local t0=$SECONDS line
  while true; do
    if IFS= read -r -t 15 line; then
      printf '%s\n' "$line"
    elif [ $? -gt 128 ]; then
      [ -z "$line" ] || printf '%s' "$line"
      echo "record: $1 still running, $((SECONDS - t0))s in" >&2
    else
      [ -z "$line" ] || printf '%s' "$line"
      break
    fi
  done
}

make_temp_dir
# A record's verdicts in one line: "3 held, 1 failed, 0 inconclusive of 4"
COUNTS='.verdicts | [(map(select(.outcome == "held")) | length), (map(select(.outcome == "failed")) | length),
  (map(select(.outcome == "inconclusive")) | length), length]
  | "\(.[0]) held, \(.[1]) failed, \(.[2]) inconclusive of \(.[3])"'
summary=()
failed=0
for name in "${scripts[@]}"; do
  echo
  log=$TEMP_DIR/$name.txt
  t0=$SECONDS
  status=0
  "experiments/$name.sh" "${SHORT[@]}" 2>&1 | heartbeat "$name" | tee "$log" || status=$?
  minutes=$(calc 'a / 60' $((SECONDS - t0)))
  out=experiments/results/$name
  if [ "$status" -eq 0 ] && [ -f "$out/record.json" ]; then
    rm -rf "docs/results/$name"
    mkdir -p "docs/results/$name"
    cp "$out/record.json" "docs/results/$name/"
    jq -r '.charts[]' "$out/record.json" | while read -r chart; do cp "$out/$chart" "docs/results/$name/"; done
    cp "$log" "docs/results/$name/output.txt"
    summary+=("$name|recorded|$minutes|$(jq -r "$COUNTS" "$out/record.json")")
  else
    failed=$((failed + 1))
    summary+=("$name|FAILED (status $status; its earlier record stays)|$minutes|-")
  fi
done

echo
echo "--- record ---"
printf '%-24s %-44s %8s %s\n' experiment result minutes verdicts
for row in "${summary[@]}"; do
  IFS='|' read -r name result minutes verdicts <<< "$row"
  printf '%-24s %-44s %8s %s\n' "$name" "$result" "$minutes" "$verdicts"
done
echo
loan_runtime docs
[ "$failed" -eq 0 ]
