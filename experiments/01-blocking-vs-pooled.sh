#!/usr/bin/env bash
# The lesson's first measurement in every execution model: one heavy request, four light ones 50 ms later.
# Virtual threads on one carrier, virtual threads on the default carriers, platform threads; each with the
# derivation inline (/member/verify-blocking) and on the crypto pool (/member/verify-pooled); and, when taskset
# exists, each again confined to one CPU. Light requests that wait for the heavy one take nearly as long as it.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 5 2)}
begin_experiment 01-blocking-vs-pooled "With one heavy request in flight, do light requests wait for it, in each execution model?"
echo "rounds:  $ROUNDS per case (medians over all rounds); heavy then 4 x /books 50 ms later; fresh connection per request"
setting rounds "$ROUNDS"
echo

MODELS=("virtual-1-carrier|--carriers 1|virtual, 1 carrier"
    "virtual-default|               |virtual, default carriers"
    "platform|--threads platform|platform threads")
CPUS=("all")
if command -v taskset > /dev/null; then CPUS+=("1cpu"); else echo "(taskset not found: no one-CPU cases)"; fi

rows=()
for cpu in "${CPUS[@]}"; do
  for model in "${MODELS[@]}"; do
    IFS='|' read -r key options title <<< "$model"
    confine=()
    [ "$cpu" = "1cpu" ] && confine=(--cpu 0)
    # shellcheck disable=SC2086 # options are words
    start_server "$OUT/$key-$cpu.server.log" "${confine[@]}" $options
    for endpoint in blocking pooled; do
      case=$key-$cpu-$endpoint
      where=$([ "$cpu" = "1cpu" ] && echo "1 CPU" || echo "all CPUs")
      loan_runtime probe --url "$SERVER_URL" --heavy "/member/verify-$endpoint" --rounds "$ROUNDS" \
        --label "$title, $where: $endpoint" --json "$OUT/$case.json" > "$OUT/$case.txt"
      while read -r heavy light light_max ratio; do
        figure "heavy.$key-$cpu-$endpoint" "$(fixed 3 "$heavy")" s "heavy request: $title, $where, $endpoint"
        figure "light.$key-$cpu-$endpoint" "$(fixed 3 "$light")" s "light requests' median: $title, $where, $endpoint"
        figure "light-max.$key-$cpu-$endpoint" "$(fixed 3 "$light_max")" s "slowest light request: $title, $where, $endpoint"
        figure "ratio.$key-$cpu-$endpoint" "$(fixed 4 "$ratio")" "" "light/heavy: $title, $where, $endpoint"
      done < <(probe_rounds "$OUT/$case.json")
      rows+=("$key|$cpu|$endpoint")
      printf '%-36s heavy %s s  light median %s s  light/heavy %s\n' "$case" "$(figure_median "heavy.$case")" \
        "$(figure_median "light.$case")" "$(figure_median "ratio.$case")"
    done
    stop_server "$SERVER_PID"
  done
done

echo
table models "medians over $ROUNDS rounds, but light-max: the slowest light request of all rounds (seconds; light: the \
4 light requests of each round)" \
  model cpus endpoint heavy light light-max light/heavy
for row in "${rows[@]}"; do
  IFS='|' read -r key cpu endpoint <<< "$row"
  case=$key-$cpu-$endpoint
  table_row "$key" "$cpu" "$endpoint" "$(figure_median "heavy.$case")" "$(figure_median "light.$case")" \
    "$(figure_values "light-max.$case" | sort -g | tail -1)" "$(figure_median "ratio.$case")"
done
table_end

verdict_on "one carrier + blocking starves the light requests" 'ratio.virtual-1-carrier-*-blocking' '>=' 0.8
verdict_on "pooled does not starve them, in any model" 'ratio.*-pooled' '<' 0.05
verdict_on "platform threads are time-sliced even inline" 'ratio.platform-*-blocking' '<' 0.05
if [ "$(nproc)" -ge 2 ]; then
  verdict_on "default carriers + blocking: a free carrier serves the light requests (all CPUs)" \
    'ratio.virtual-default-all-blocking' '<' 0.05
fi
if [[ " ${CPUS[*]} " == *" 1cpu "* ]]; then
  verdict_on "default carriers on 1 CPU means 1 carrier: blocking starves" 'ratio.virtual-default-1cpu-blocking' '>=' 0.8
fi

files=()
for row in "${rows[@]}"; do
  IFS='|' read -r key cpu endpoint <<< "$row"
  files+=("$OUT/$key-$cpu-$endpoint.json")
done
loan_runtime chart timeline --title "Heavy request, then 4 light ones 50 ms later (last of $ROUNDS rounds)" \
  --out "$OUT/timeline.png" "${files[@]}"
end_experiment
