#!/usr/bin/env bash
# Overload: which protection keeps the light requests fast when heavy work arrives faster than the cores derive it.
# First the server's derivation capacity (a closed loop of two clients on verify-pooled, derivations per second). Then
# per protection and per load factor (0.5x, 1x, 2x, 5x that capacity), a fresh server: heavy requests arrive open-loop
# (load --rate: each one's latency counts from when it was due) for HEAVY_S seconds, light /books at LIGHT_RATE a
# second beside (timeouts: heavy 30 s, light 60 s, so that a light p99 can show how long the light ones waited). The
# protections:
#   none          the memory bound alone (--crypto-queue 100000: nothing else refuses), inline and pooled;
#   crypto-bound  the crypto pool's bound as it ships (64 may wait), pooled;
#   crypto-sized  the crypto pool's queue sized to a wait budget (--crypto-queue: capacity x WAIT_BUDGET_S, less the
#                 one pool thread a one-CPU server has), pooled: a derivation it admits waits WAIT_BUDGET_S at most;
#   fixed, aimd   Helidon's concurrency limit on the listener (--limit fixed:4:0, --limit aimd), inline and pooled;
#   guard         the carrier-delay guard (--shed-delay 50ms), inline (pooled, the carrier is never late);
#   node-guard    the Node.js peer with the same guard on its event loop's delay, scryptSync and scrypt.
# Figures: heavy goodput (200s a second), heavy p99 of the 200s, heavy 503s, light p99 of the 200s, light failures,
# the server's peak RSS (the JVM's). The light tail's growth is measured from 0.5x: at 1x an open loop's backlog is a
# random walk, which may already hold the light requests of an unprotected server for seconds. Servers on CPU 0,
# clients on CPU 1. Then what each protection costs without overload: /books per CPU beside bare Helidon (experiment
# 12's method, experiments/lib/cpu_pairs.sh).
# Settings (environment): HEAVY_S (30, --short 10), LIGHT_RATE (20), FACTORS ("0.5 1 2 5", --short "0.5 5"),
# SHED (50ms), WAIT_BUDGET_S (5), COST_ROUNDS (2, --short 1), COST_PAIRS (2, --short 1), PROTECTIONS (every case; a
# list of keys, e.g. "none-pooled crypto-sized", runs only those; the verdicts then speak of those alone).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq curl taskset wrk
HEAVY_S=${HEAVY_S:-$(full_or_short 30 10)}
LIGHT_RATE=${LIGHT_RATE:-20}
read -r -a FACTORS <<< "${FACTORS:-$(full_or_short "0.5 1 2 5" "0.5 5")}"
SHED=${SHED:-50ms}
WAIT_BUDGET_S=${WAIT_BUDGET_S:-5}
COST_ROUNDS=${COST_ROUNDS:-$(full_or_short 2 1)}
COST_PAIRS=${COST_PAIRS:-$(full_or_short 2 1)}
[ "$(nproc)" -ge 2 ] || { echo "14-overload.sh needs 2 CPUs (servers on CPU 0, clients on CPU 1)" >&2; exit 1; }
HAVE_NODE=false; command -v node > /dev/null && HAVE_NODE=true
begin_experiment 14-overload "Which protection keeps the light requests fast when heavy work arrives faster than the cores can do it, and what does each cost without overload?"
echo "heavy:   open loop at ${FACTORS[*]} x the capacity for ${HEAVY_S}s; light: /books at ${LIGHT_RATE}/s beside"
for s in heavy-seconds:"$HEAVY_S" light-rate:"$LIGHT_RATE" factors:"${FACTORS[*]}" shed-delay:"$SHED" \
    wait-budget-seconds:"$WAIT_BUDGET_S" protections:"${PROTECTIONS:-all}" cost-rounds:"$COST_ROUNDS" cost-pairs:"$COST_PAIRS"; do
  setting "${s%%:*}" "${s#*:}"
done
$HAVE_NODE || echo "node:    missing: the Node.js cases are skipped"
shed_ms=${SHED%ms}

client=(taskset -c 1)
echo
echo "--- capacity: derivations per second of one server on CPU 0 ---"
start_server "$OUT/capacity.server.log" --cpu 0
curl_requests 2 "$SERVER_URL/member/verify-pooled" --max-time 60 > /dev/null
"${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /member/verify-pooled --concurrency 2 \
  --duration 10s --timeout 60s --json "$OUT/capacity.json" > "$OUT/capacity.txt"
stop_server "$SERVER_PID"
CAPACITY=$(json_get "$OUT/capacity.json" .goodputPerS)
figure capacity "$(fixed 3 "$CAPACITY")" deriv/s "derivations per second, one server on one CPU"
echo "capacity: $CAPACITY derivations/s"

# The crypto pool's queue for a wait budget: the derivations it admits beyond the one running, at capacity.
SIZED_QUEUE=$(fixed 0 "$(calc 'int(a * b + 0.5) - 1' "$CAPACITY" "$WAIT_BUDGET_S")")
holds "$SIZED_QUEUE" '>=' 1 || SIZED_QUEUE=1
figure sized-queue "$SIZED_QUEUE" "" "crypto-sized: --crypto-queue for a ${WAIT_BUDGET_S} s wait at capacity"

# The cases: KEY|SERVER (serve or node)|OPTIONS|HEAVY PATH|TITLE
CASES=("none-inline|serve|--crypto-queue 100000|/member/verify-blocking|none, inline"
  "none-pooled|serve|--crypto-queue 100000|/member/verify-pooled|none, pooled"
  "crypto-bound|serve||/member/verify-pooled|crypto pool's bound as it ships (queue 64), pooled"
  "crypto-sized|serve|--crypto-queue $SIZED_QUEUE|/member/verify-pooled|crypto pool's bound for ${WAIT_BUDGET_S} s (queue $SIZED_QUEUE), pooled"
  "fixed-inline|serve|--limit fixed:4:0|/member/verify-blocking|Helidon fixed:4:0, inline"
  "fixed-pooled|serve|--limit fixed:4:0|/member/verify-pooled|Helidon fixed:4:0, pooled"
  "aimd-inline|serve|--limit aimd|/member/verify-blocking|Helidon aimd, inline"
  "aimd-pooled|serve|--limit aimd|/member/verify-pooled|Helidon aimd, pooled"
  "guard-inline|serve|--shed-delay $SHED|/member/verify-blocking|delay guard $SHED, inline")
if $HAVE_NODE; then
  CASES+=("node-guard-sync|node|--shed-delay-ms $shed_ms|/member/verify-blocking|Node.js, guard $SHED, scryptSync"
    "node-guard-pooled|node|--shed-delay-ms $shed_ms|/member/verify-pooled|Node.js, guard $SHED, scrypt")
fi
if [ -n "${PROTECTIONS:-}" ]; then
  chosen=()
  for c in "${CASES[@]}"; do
    [[ " $PROTECTIONS " == *" ${c%%|*} "* ]] && chosen+=("$c")
  done
  [ ${#chosen[@]} -gt 0 ] || { echo "PROTECTIONS names no case: '$PROTECTIONS'" >&2; exit 2; }
  CASES=("${chosen[@]}")
fi

# run_case KEY SERVER OPTIONS HEAVY FACTOR: a fresh server, the heavy and the light load at once; the figures.
run_case() {
  local key=$1 kind=$2 options=$3 heavy=$4 factor=$5 base="$OUT/$1-x$5" rate light_pid
  rate=$(calc 'a * b' "$CAPACITY" "$factor")
  # shellcheck disable=SC2086 # the options are words
  case $kind in
    serve) start_server "$base.server.log" --cpu 0 $options ;;
    node) start_peer node "$base.server.log" --cpu 0 $options ;;
  esac
  curl_requests 10 "$SERVER_URL/books" > /dev/null
  curl -s --max-time 60 "$SERVER_URL$heavy" > /dev/null
  curl -s --max-time 10 "$SERVER_URL/runtime" > /dev/null
  [ "$kind" = node ] || "$JAVA_HOME/bin/jcmd" "$SERVER_PID" GC.run > /dev/null
  start_bg "$base.light.txt" "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /books \
    --rate "$LIGHT_RATE" --warmup-requests "$LIGHT_RATE" --duration "${HEAVY_S}s" --timeout 60s --json "$base.light.json"
  light_pid=$BG_PID
  "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "$heavy" --rate "$rate" \
    --duration "${HEAVY_S}s" --timeout 30s --watch-pid "$SERVER_PID" --json "$base.heavy.json" > "$base.heavy.txt" || true
  wait_pid "$light_pid" || true
  stop_server "$SERVER_PID" KILL
  local c=$key.x$factor
  # 200s a second over the whole run, until the last answer or timeout (a request 30 s late counts as failed)
  figure "heavy.goodput.$c" "$(json_get "$base.heavy.json" .goodputPerS)" req/s "heavy 200s a second: $key at ${factor}x"
  figure "heavy.goodput-share.$c" "$(calc 'a / b' "$(json_get "$base.heavy.json" .goodputPerS)" "$CAPACITY")" "" \
    "heavy 200s a second / capacity: $key at ${factor}x"
  figure "heavy.p99.$c" "$(ok_p99 0 "$base.heavy.json")" ms \
    "heavy p99 of the 200s: $key at ${factor}x"
  figure "heavy.503.$c" "$(json_get "$base.heavy.json" '.errors["status 503"] // 0')" "" "heavy 503s: $key at ${factor}x"
  figure "light.p99.$c" "$(ok_p99 1 "$base.light.json")" ms \
    "light p99 of the 200s: $key at ${factor}x"
  figure "light.failed.$c" "$(json_get "$base.light.json" .failed)" "" "light requests that failed: $key at ${factor}x"
  [ "$kind" = node ] || figure "rss.$c" "$(fixed 0 "$(json_get "$base.heavy.json" .server.peakRssMiB)")" MiB \
    "the server's peak RSS: $key at ${factor}x"
  printf '  %-18s x%s  heavy %6s/s (%5s of capacity) p99 %7s ms 503s %4s   light p99 %8s ms failed %4s\n' "$key" \
    "$factor" "$(figure_values "heavy.goodput.$c" | tail -1)" "$(figure_values "heavy.goodput-share.$c" | tail -1)" \
    "$(figure_values "heavy.p99.$c" | tail -1)" "$(figure_values "heavy.503.$c" | tail -1)" \
    "$(figure_values "light.p99.$c" | tail -1)" "$(figure_values "light.failed.$c" | tail -1)"
}

echo
echo "--- per protection and load factor ---"
for c in "${CASES[@]}"; do
  IFS='|' read -r key kind options heavy _ <<< "$c"
  for factor in "${FACTORS[@]}"; do
    run_case "$key" "$kind" "$options" "$heavy" "$factor"
  done
  # the light requests' tail at the highest factor against the same protection at the lowest
  figure "light.p99-growth.$key" "$(calc 'a / b' "$(figure_median "light.p99.$key.x${FACTORS[-1]}")" \
    "$(figure_median "light.p99.$key.x${FACTORS[0]}")")" "" \
    "light p99 at ${FACTORS[-1]}x / at ${FACTORS[0]}x: $key"
done

echo
top=${FACTORS[-1]}
columns=()
for factor in "${FACTORS[@]}"; do columns+=("light p99 ${factor}x"); done
table overload "per protection, one ${HEAVY_S}-second run at each load factor (capacity $(fixed 2 "$CAPACITY") \
derivations/s on one CPU; heavy open loop, light /books at ${LIGHT_RATE}/s; p99s of the 200s, in ms, - where none; \
the rest at ${top}x; RSS: the JVM's peak)" protection "${columns[@]}" "light failed" "heavy of capacity" "heavy p99" "heavy 503s" \
  "RSS MiB"
lines='{"series": []}'
for c in "${CASES[@]}"; do
  IFS='|' read -r key _ _ _ title <<< "$c"
  points='[]'
  row=("$title")
  for factor in "${FACTORS[@]}"; do
    row+=("$(figure_median "light.p99.$key.x$factor")")
    # a factor where no light request was answered has no point: its line stops there
    points=$(jq -c --arg x "$factor" --arg y "$(figure_median "light.p99.$key.x$factor")" \
      'if ($y | tonumber? // 0) > 0 then . + [[($x | tonumber), ($y | tonumber)]] else . end' <<< "$points")
  done
  k=$key.x$top
  row+=("$(figure_median "light.failed.$k")" "$(figure_median "heavy.goodput-share.$k")" \
    "$(figure_median "heavy.p99.$k")" "$(figure_median "heavy.503.$k")" "$(figure_median "rss.$k")")
  table_row "${row[@]}"
  lines=$(jq -c --arg name "$key" --argjson points "$points" \
    'if ($points | length) > 0 then .series += [{"label": $name, "points": $points}] else . end' <<< "$lines")
done
table_end
echo "$lines" > "$OUT/light-p99.lines.json"
loan_runtime chart lines --log --title "Light /books p99 against heavy overload, one line per protection" \
  --x-label "heavy arrivals / derivation capacity" --y-label "light p99 of the 200s, ms (log scale)" \
  --out "$OUT/light-p99.png" "$OUT/light-p99.lines.json"

echo
echo "--- what each protection costs without overload: /books per CPU beside bare Helidon ---"
COST_KINDS=(none fixed aimd guard)
PAIR_LABEL[none]="serve (no protection)"; PAIR_OPTIONS[none]=""
PAIR_LABEL[aimd]="serve --limit aimd"; PAIR_OPTIONS[aimd]="--limit aimd"
PAIR_LABEL[guard]="serve --shed-delay $SHED"; PAIR_OPTIONS[guard]="--shed-delay $SHED"
# fixed:4:0 refuses a /books past four at once: the pairs' wrk keeps 50 connections, so these use fixed:64:0
PAIR_LABEL[fixed]="serve --limit fixed:64:0"; PAIR_OPTIONS[fixed]="--limit fixed:64:0"
cpu_pairs "$COST_ROUNDS" "$COST_PAIRS" 6 20 "${COST_KINDS[@]}"
for kind in fixed aimd guard; do
  figure_per_round "idle-cost.$kind" 'a / b' "ratio.$kind" ratio.none "" \
    "/books throughput per CPU with ${PAIR_LABEL[$kind]}, as a share of serve's without protection"
done
cpu_costs_table costs "${COST_KINDS[@]}"

echo
KEPT=()
light_requests=$(calc 'a * b' "$LIGHT_RATE" "$HEAVY_S")
if [[ " ${CASES[*]%%|*} " == *" none-inline "* ]]; then
  verdict_on "with none, inline, the light p99 at ${top}x grows past 10 times its value at ${FACTORS[0]}x" \
    'light.p99-growth.none-inline' '>' 10
fi
for c in "${CASES[@]}"; do
  IFS='|' read -r key _ _ _ title <<< "$c"
  if holds "$(figure_median "light.p99-growth.$key")" '<=' 3 \
      && holds "$(figure_median "light.failed.$key.x$top")" '<=' "$(calc 'a / 100' "$light_requests")" \
      && holds "$(figure_median "heavy.goodput-share.$key.x$top")" '>=' 0.8; then
    echo "kept: $title (light p99 ${top}x / ${FACTORS[0]}x $(figure_median "light.p99-growth.$key"), light failed" \
      "$(figure_median "light.failed.$key.x$top"), goodput $(figure_median "heavy.goodput-share.$key.x$top") of capacity)"
    KEPT+=("$key")
  fi
done
verdict "at ${top}x some protection keeps the light requests answered (1% fail at most), their p99 within 3 times its \
${FACTORS[0]}x value, and heavy goodput at 0.8 of capacity or more" \
  "light.p99-growth <= 3, light.failed <= 1%, heavy.goodput-share.x$top >= 0.8, for one protection" \
  "$([ ${#KEPT[@]} -gt 0 ] && echo "true" || echo "false")" "one run: ${KEPT[*]:-none}"
end_experiment
