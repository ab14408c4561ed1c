#!/usr/bin/env bash
# The crypto pool moves heavy work off the request threads; it does not add CPU. (a) 8 pooled derivations at once on
# a pool of 4: they finish in steps of 4 while light requests stay fast. (b) The same fixed batch of derivations
# with pools of 1, 2, 4 and 8 threads: derivations per second stops growing at the number of cores. Every case is
# measured in rounds; (b)'s rounds take the pool sizes in turn, one server per pool size kept for all rounds, so a
# busy moment of the machine falls on every pool size alike, and each round's rates are compared with each other.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
HEAVY=${HEAVY:-8}
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
STEP_ROUNDS=${STEP_ROUNDS:-$(full_or_short 3 1)}
WARMUP=${WARMUP:-$(full_or_short 2 0)}
POOLS=(1 2 4 8)
CORES=$(nproc)
begin_experiment 02-pool-limit "Does a bigger crypto pool add derivations per second beyond the core count?"
echo "cores:   nproc = $CORES"
echo "(a)      8 x /member/verify-pooled at once + 4 x /books 50 ms later, --crypto-threads 4, $STEP_ROUNDS round(s)"
echo "(b)      $HEAVY x /member/verify-pooled, 8 at a time, --crypto-threads ${POOLS[*]}, $ROUNDS round(s)" \
  "(the first after $WARMUP warm-up)"
setting cores "$CORES"
setting step-rounds "$STEP_ROUNDS"
setting rounds "$ROUNDS"
setting derivations-per-round "$HEAVY"
setting warmup-derivations "$WARMUP"
echo

# One server per pool size, up for the whole run. No balancer watches them: they stop at once (--drain-delay 0).
declare -A url pid
for pool in "${POOLS[@]}"; do
  start_server "$OUT/pool-$pool.server.log" --crypto-threads "$pool" --drain-delay 0
  url[$pool]=$SERVER_URL
  pid[$pool]=$SERVER_PID
done

echo "--- (a) 8 heavy requests on a pool of 4 (last round) ---"
loan_runtime probe --url "${url[4]}" --heavy /member/verify-pooled --heavy-count 8 --rounds "$STEP_ROUNDS" \
  --label "8 pooled derivations, --crypto-threads 4" --json "$OUT/staircase.json" > "$OUT/staircase.txt"
# The last round's lines, as the lesson prints them.
awk '/^--- round/ { buf = "" } /^(heavy|light)/ { buf = buf $0 "\n" } /^--- summary/ { exit } END { printf "%s", buf }' \
  "$OUT/staircase.txt"
# Per round: the mean of the faster half of the heavy requests and of the slower half (s), the light requests'
# median (s), and the light median over the heavy median.
jq -r 'def median: sort | if length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  .rounds[] | ([.requests[] | select(.kind == "heavy") | .durationMs / 1000] | sort) as $h
  | [.requests[] | select(.kind == "light") | .durationMs / 1000] as $l | ($h | length / 2 | floor) as $n
  | "\($h[:$n] | add / length) \($h[$n:] | add / length) \($l | median) \(($l | median) / ($h | median))"' \
  "$OUT/staircase.json" > "$OUT/staircase.rounds"
table steps "8 pooled derivations on a pool of 4, 4 light requests 50 ms later (s)" \
  round "first 4 heavy, mean s" "last 4 heavy, mean s" "last/first" "light median s" "light/heavy"
round=0
while read -r fast slow light ratio; do
  round=$((round + 1))
  figure step.first-half "$(fixed 3 "$fast")" s "first 4 heavy requests' mean"
  figure step.last-half "$(fixed 3 "$slow")" s "last 4 heavy requests' mean"
  figure step.last-over-first "$(calc 'b / a' "$fast" "$slow")" "" "last 4 heavy over first 4 heavy"
  figure step.light "$(fixed 3 "$light")" s "light requests' median"
  figure light-over-heavy "$(fixed 4 "$ratio")" "" "light requests' median over the heavy requests' median"
  table_row "$round" "$(fixed 3 "$fast")" "$(fixed 3 "$slow")" "$(calc 'b / a' "$fast" "$slow")" "$(fixed 3 "$light")" \
    "$(fixed 4 "$ratio")"
done < "$OUT/staircase.rounds"
if [ "$round" -gt 1 ]; then
  table_row median "$(figure_median step.first-half)" "$(figure_median step.last-half)" \
    "$(figure_median step.last-over-first)" "$(figure_median step.light)" "$(figure_median light-over-heavy)"
fi
table_end

echo "--- (b) derivations per second against pool size ---"
# The pool size that the verdicts compare with: the largest one that does not exceed the cores.
ref=${POOLS[0]}
for pool in "${POOLS[@]}"; do [ "$pool" -le "$CORES" ] && ref=$pool; done
declare -A rate
for round in $(seq "$ROUNDS"); do
  warmup=0
  [ "$round" -eq 1 ] && warmup=$WARMUP
  for pool in "${POOLS[@]}"; do
    run=pool-$pool-$round
    loan_runtime load --url "${url[$pool]}" --path /member/verify-pooled --concurrency 8 --requests "$HEAVY" \
      --warmup-requests "$warmup" --timeout 300s --label "crypto-threads $pool, round $round" --json "$OUT/$run.json" \
      > "$OUT/$run.txt"
    rate[$pool]=$(fixed 3 "$(json_get "$OUT/$run.json" .throughputPerS)")
    figure "rate.pool-$pool" "${rate[$pool]}" derivations/s "derivations per second, --crypto-threads $pool"
    printf 'round %s  crypto-threads %-2s  %s derivations in %s s\n' "$round" "$pool" "$HEAVY" \
      "$(json_get "$OUT/$run.json" .elapsedS)"
  done
  # Each round's rates over the same round's rate at pool=$ref: a slower moment of the machine shifts them all.
  for pool in "${POOLS[@]}"; do
    if [ "$pool" -gt "$ref" ]; then
      figure "above-cores.pool-$pool" "$(calc 'a / b' "${rate[$pool]}" "${rate[$ref]}")" "" \
        "derivations/s with --crypto-threads $pool over --crypto-threads $ref (the cores)"
    elif [ "$pool" -lt "$ref" ]; then
      figure "below-cores.pool-$pool" "$(calc 'a / b' "${rate[$pool]}" "${rate[$ref]}")" "" \
        "derivations/s with --crypto-threads $pool over --crypto-threads $ref (the cores)"
    fi
  done
done
for pool in "${POOLS[@]}"; do stop_server "${pid[$pool]}"; done
echo

table pools "derivations per second against pool size, median of $ROUNDS round(s) of $HEAVY derivations ($CORES cores)" \
  "crypto threads" "derivations/s" "min" "max" "vs pool=$ref"
pairs=()
for pool in "${POOLS[@]}"; do
  vs=1.00
  [ "$pool" -gt "$ref" ] && vs=$(figure_median "above-cores.pool-$pool")
  [ "$pool" -lt "$ref" ] && vs=$(figure_median "below-cores.pool-$pool")
  table_row "$pool" "$(figure_median "rate.pool-$pool")" "$(figure_values "rate.pool-$pool" | sort -g | head -1)" \
    "$(figure_values "rate.pool-$pool" | sort -g | tail -1)" "$vs"
  # The chart's point: the median of the rounds.
  jq -n --argjson rate "$(figure_median "rate.pool-$pool")" --arg name "crypto-threads $pool" \
    '{throughputPerS: $rate, config: {label: $name}}' > "$OUT/pool-$pool.median.json"
  pairs+=("$pool=$OUT/pool-$pool.median.json")
done
table_end

verdict_on "(a) 8 derivations on a pool of 4 finish in steps of 4" step.last-over-first '>=' 1.5
verdict_on "(a) light requests stay fast meanwhile" light-over-heavy '<' 0.05
verdict_on "(b) beyond the core count a bigger pool adds nothing" 'above-cores.*' '<' 1.25
if [ "$ref" -gt 1 ]; then
  verdict_on "(b) below the core count the pool is the limit" 'below-cores.*' '<' 0.75
fi

loan_runtime chart timeline --title "8 pooled derivations on --crypto-threads 4, 4 light requests 50 ms later" \
  --out "$OUT/staircase.png" "$OUT/staircase.json"
loan_runtime chart scaling --title "Pooled scrypt derivations per second against pool size ($CORES cores)" \
  --x-label "crypto pool threads (--crypto-threads)" --y-label "derivations per second" \
  --series "median of $ROUNDS round(s) of $HEAVY derivations, 8 at a time" --mark "$CORES" \
  --mark-label " cores (nproc = $CORES)" --out "$OUT/pool-scaling.png" "${pairs[@]}"
end_experiment
