#!/usr/bin/env bash
# The crypto pool moves heavy work off the request threads; it does not add CPU. (a) 8 pooled derivations at once on
# a pool of 4: they finish in steps of 4 while light requests stay fast. (b) The same fixed batch of derivations
# with pools of 1, 2, 4 and 8 threads: derivations per second stops growing at the number of cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

HEAVY=${HEAVY:-8}
POOLS=(1 2 4 8)
CORES=$(nproc)
begin_experiment 02-pool-limit
echo "cores:   nproc = $CORES"
echo "(a)      8 x /member/verify-pooled at once + 4 x /books 50 ms later, --crypto-threads 4, 2 rounds"
echo "(b)      $HEAVY x /member/verify-pooled, 8 at a time (after 2 warm-up), --crypto-threads ${POOLS[*]}"
echo

echo "--- (a) 8 heavy requests on a pool of 4 (last round) ---"
start_server "$OUT/staircase.server.log" --crypto-threads 4
loan_runtime probe --url "$SERVER_URL" --heavy /member/verify-pooled --heavy-count 8 --rounds 2 \
  --label "8 pooled derivations, --crypto-threads 4" --json "$OUT/staircase.json" > "$OUT/staircase.txt"
stop_server "$SERVER_PID"
# The last round's lines, as the lesson prints them.
awk '/^--- round/ { buf = "" } /^(heavy|light)/ { buf = buf $0 "\n" } /^--- summary/ { exit } END { printf "%s", buf }' \
  "$OUT/staircase.txt"
mapfile -t heavy < <(awk '/^--- round/ { buf = "" } /^heavy-[0-9]+ / { buf = buf $2 "\n" } END { printf "%s", buf }' \
  "$OUT/staircase.txt" | sort -n)
half=$(( ${#heavy[@]} / 2 ))
fast=$(printf '%s\n' "${heavy[@]:0:$half}" | awk '{ s += $1 } END { printf "%.3f", s / NR }')
slow=$(printf '%s\n' "${heavy[@]:$half}" | awk '{ s += $1 } END { printf "%.3f", s / NR }')
ratio=$(field "$OUT/staircase.txt" '^light\/heavy' 2)
echo "first 4 heavy: mean $fast s   last 4 heavy: mean $slow s   light/heavy (medians) $ratio"
echo

echo "--- (b) derivations per second against pool size ---"
pairs=()
declare -A rate
for pool in "${POOLS[@]}"; do
  start_server "$OUT/pool-$pool.server.log" --crypto-threads "$pool"
  loan_runtime load --url "$SERVER_URL" --path /member/verify-pooled --concurrency 8 --requests "$HEAVY" \
    --warmup-requests 2 --timeout 300s --label "crypto-threads $pool" --json "$OUT/pool-$pool.json" \
    > "$OUT/pool-$pool.txt"
  stop_server "$SERVER_PID"
  rate[$pool]=$(field "$OUT/pool-$pool.txt" '^throughput' 2)
  pairs+=("$pool=$OUT/pool-$pool.json")
  printf 'crypto-threads %-2s  %s derivations in %s s\n' "$pool" "$HEAVY" "$(field "$OUT/pool-$pool.txt" '^elapsed' 2)"
done
ref=${POOLS[0]}
for pool in "${POOLS[@]}"; do [ "$pool" -le "$CORES" ] && ref=$pool; done

echo
echo "--- results ---"
printf '%-15s %16s %16s\n' crypto-threads derivations/s "vs pool=$ref"
for pool in "${POOLS[@]}"; do
  printf '%-15s %16s %16s\n' "$pool" "${rate[$pool]}" "$(awk "BEGIN { printf \"%.2f\", ${rate[$pool]} / ${rate[$ref]} }")"
done
echo

verdict "(a) 8 derivations on a pool of 4 finish in steps (last 4 >= 1.5 x first 4)" \
    "$(truth holds "$slow" '>=' "1.5 * $fast")"
verdict "(a) light requests stay fast meanwhile (light < 5% of heavy)" "$(truth holds "$ratio" '<' 0.05)"
beyond=true
for pool in "${POOLS[@]}"; do
  if [ "$pool" -gt "$ref" ]; then holds "${rate[$pool]}" '<' "1.25 * ${rate[$ref]}" || beyond=false; fi
done
verdict "(b) beyond the $CORES cores a bigger pool adds nothing (each < 1.25 x pool=$ref)" "$beyond"
if [ "$ref" -gt 1 ]; then
  verdict "(b) below the core count the pool is the limit (pool=1 < 0.75 x pool=$ref)" \
      "$(truth holds "${rate[1]}" '<' "0.75 * ${rate[$ref]}")"
fi

loan_runtime chart timeline --title "8 pooled derivations on --crypto-threads 4, 4 light requests 50 ms later" \
  --out "$OUT/staircase.png" "$OUT/staircase.json"
loan_runtime chart scaling --title "Pooled scrypt derivations per second against pool size ($CORES cores)" \
  --x-label "crypto pool threads (--crypto-threads)" --y-label "derivations per second" \
  --series "$HEAVY derivations, 8 at a time" --mark "$CORES" --mark-label " cores (nproc = $CORES)" \
  --out "$OUT/pool-scaling.png" "${pairs[@]}"
