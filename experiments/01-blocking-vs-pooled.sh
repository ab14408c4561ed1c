#!/usr/bin/env bash
# The lesson's first measurement in every execution model: one heavy request, four light ones 50 ms later.
# Virtual threads on one carrier, virtual threads on the default carriers, platform threads; each with the
# derivation inline (/member/verify-blocking) and on the crypto pool (/member/verify-pooled); and, when taskset
# exists, each again confined to one CPU. Light requests that wait for the heavy one take nearly as long as it.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

require_tools jq
ROUNDS=${ROUNDS:-5}
begin_experiment 01-blocking-vs-pooled
echo "rounds:  $ROUNDS per case (medians over all rounds); heavy then 4 x /books 50 ms later; fresh connection per request"
echo

MODELS=("virtual-1-carrier|--carriers 1|virtual, 1 carrier"
    "virtual-default|               |virtual, default carriers"
    "platform|--threads platform|platform threads")
CPUS=("all")
if command -v taskset > /dev/null; then CPUS+=("1cpu"); else echo "(taskset not found: no one-CPU cases)"; fi

# summary FILE NAME DECIMALS: a figure of the summary in probe's JSON FILE (there with any number of rounds), with
# as many decimals as probe prints it.
summary() { fixed "$3" "$(json_get "$1" ".summary.$2")"; }

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
      heavy=$(summary "$OUT/$case.json" heavyMedianS 3)
      light=$(summary "$OUT/$case.json" lightMedianS 3)
      light_max=$(summary "$OUT/$case.json" lightMaxS 3)
      ratio=$(summary "$OUT/$case.json" lightOverHeavy 4)
      rows+=("$key|$cpu|$endpoint|$heavy|$light|$light_max|$ratio")
      printf '%-36s heavy %s s  light median %s s  light/heavy %s\n' "$case" "$heavy" "$light" "$ratio"
    done
    stop_server "$SERVER_PID"
  done
done

echo
echo "--- results (seconds; light = the 4 light requests of every round) ---"
printf '%-18s %-5s %-9s %8s %13s %10s %12s\n' model cpus endpoint heavy light-median light-max light/heavy
for row in "${rows[@]}"; do
  IFS='|' read -r key cpu endpoint heavy light light_max ratio <<< "$row"
  printf '%-18s %-5s %-9s %8s %13s %10s %12s\n' "$key" "$cpu" "$endpoint" "$heavy" "$light" "$light_max" "$ratio"
done
echo

# claim_all KEY_PATTERN CPU_PATTERN ENDPOINT OP THRESHOLD: true when every matching row's light/heavy OP THRESHOLD.
claim_all() {
  local ok=true matched=0 row key cpu endpoint heavy light light_max ratio
  for row in "${rows[@]}"; do
    IFS='|' read -r key cpu endpoint heavy light light_max ratio <<< "$row"
    [[ "$key" =~ $1 && "$cpu" =~ $2 && "$endpoint" =~ $3 ]] || continue
    matched=$((matched + 1))
    holds "$ratio" "$4" "$5" || ok=false
  done
  [ "$matched" -gt 0 ] || ok=false
  echo "$ok"
}

verdict "one carrier + blocking starves the light requests (light >= 0.8 x heavy)" \
    "$(claim_all '^virtual-1-carrier$' '.' '^blocking$' '>=' 0.8)"
verdict "pooled does not starve them, in every model (light < 5% of heavy)" \
    "$(claim_all '.' '.' '^pooled$' '<' 0.05)"
verdict "platform threads are time-sliced even inline (blocking: light < 5% of heavy)" \
    "$(claim_all '^platform$' '.' '^blocking$' '<' 0.05)"
if [ "$(nproc)" -ge 2 ]; then
  verdict "default carriers + blocking: a free carrier serves light requests, all CPUs (light < 5%)" \
      "$(claim_all '^virtual-default$' '^all$' '^blocking$' '<' 0.05)"
fi
if [[ " ${CPUS[*]} " == *" 1cpu "* ]]; then
  verdict "default carriers on 1 CPU means 1 carrier: blocking starves (light >= 0.8 x heavy)" \
      "$(claim_all '^virtual-default$' '^1cpu$' '^blocking$' '>=' 0.8)"
fi

files=()
for row in "${rows[@]}"; do
  IFS='|' read -r key cpu endpoint _ <<< "$row"
  files+=("$OUT/$key-$cpu-$endpoint.json")
done
loan_runtime chart timeline --title "Heavy request, then 4 light ones 50 ms later (last of $ROUNDS rounds)" \
  --out "$OUT/timeline.png" "${files[@]}"
