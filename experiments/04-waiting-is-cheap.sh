#!/usr/bin/env bash
# Waiting is cheap: 10,000 concurrent requests that each wait 100 ms (GET /catalog/lookup?ms=100), served by virtual
# threads and by a pool of 200 platform threads. Little's law (throughput = concurrency / wait) predicts both:
# virtual threads hold every wait at once; the platform pool holds 200 and queues the rest. In rounds, each on fresh
# servers, the two models in turn (which goes first alternates from round to round).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
CONCURRENCY=${CONCURRENCY:-$(full_or_short 10000 2000)}
WAIT_MS=${WAIT_MS:-100}
PLATFORM_THREADS=200
begin_experiment 04-waiting-is-cheap \
  "Do requests that wait cost virtual threads little, while a pool of platform threads caps them at Little's law?"
echo "requests: $CONCURRENCY concurrent GET /catalog/lookup?ms=$WAIT_MS, after a warm-up of as many requests"
echo "          that opens the $CONCURRENCY keep-alive connections (so connecting is not measured) and warms the JIT"
echo "servers:  virtual (default carriers) and --threads platform --platform-threads $PLATFORM_THREADS, fresh each round"
echo "rounds:   $ROUNDS"
echo "limits:   ulimit -n $(ulimit -n), net.core.somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?)"
setting rounds "$ROUNDS"
setting concurrency "$CONCURRENCY"
setting wait-ms "$WAIT_MS"
setting platform-threads "$PLATFORM_THREADS"
echo

# Little's law: requests in the system = throughput x time in the system. The pool's ceiling is the one both models
# are held against.
declare -A ceiling
ceiling[virtual]=$(calc 'a / (b / 1000)' "$CONCURRENCY" "$WAIT_MS")
ceiling[platform]=$(calc 'a / (b / 1000)' "$PLATFORM_THREADS" "$WAIT_MS")

for round in $(seq "$ROUNDS"); do
  order=(virtual platform)
  [ $((round % 2)) -eq 0 ] && order=(platform virtual)
  for model in "${order[@]}"; do
    options=()
    [ "$model" = platform ] && options=(--threads platform --platform-threads "$PLATFORM_THREADS")
    run=$model-$round
    # No balancer watches the server: it stops at once (--drain-delay 0).
    start_server "$OUT/$run.server.log" "${options[@]}" --drain-delay 0
    echo "--- round $round: $model threads ---"
    loan_runtime load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS" --concurrency "$CONCURRENCY" \
      --requests "$CONCURRENCY" --warmup-requests "$CONCURRENCY" --timeout 120s --watch-pid "$SERVER_PID" \
      --label "$model threads, round $round" --json "$OUT/$run.json" | tee "$OUT/$run.txt"
    stop_server "$SERVER_PID"
    echo
  done
  for model in virtual platform; do
    json=$OUT/$model-$round.json
    rate=$(fixed 1 "$(json_get "$json" .throughputPerS)")
    figure "rate.$model" "$rate" req/s "throughput, $model threads"
    figure "failed.$model" "$(json_get "$json" .failed)" "" "requests that failed, $model threads"
    figure "wall.$model" "$(fixed 3 "$(json_get "$json" .elapsedS)")" s "wall time of the burst, $model threads"
    figure "p50.$model" "$(fixed 1 "$(json_get "$json" .latencyMs.p50)")" ms "p50 latency, $model threads"
    figure "p99.$model" "$(fixed 1 "$(json_get "$json" .latencyMs.p99)")" ms "p99 latency, $model threads"
    figure "threads.$model" "$(json_get "$json" .server.peakThreads)" "" "peak OS threads of the server, $model threads"
    figure "rss.$model" "$(fixed 1 "$(json_get "$json" .server.peakRssMiB)")" MiB "peak RSS of the server, $model threads"
    figure "over-ceiling.$model" "$(calc 'a / b' "$rate" "${ceiling[platform]}")" "" \
      "throughput over the pool's Little's-law ceiling, $model threads"
  done
done

table results "$CONCURRENCY concurrent waits of $WAIT_MS ms, medians of $ROUNDS round(s) (Little's law: requests held at once / wait)" \
  threads "wall s" "req/s" "Little's law req/s" "p50 ms" "p99 ms" "peak OS threads" "peak RSS MiB"
for model in virtual platform; do
  table_row "$model" "$(figure_median "wall.$model")" "$(figure_median "rate.$model")" "${ceiling[$model]}" \
    "$(figure_median "p50.$model")" "$(figure_median "p99.$model")" "$(figure_median "threads.$model")" \
    "$(figure_median "rss.$model")"
done
table_end

verdict_on "$PLATFORM_THREADS platform threads cap throughput at Little's law" over-ceiling.platform '<=' 1.1
verdict_on "the platform pool still reaches half of its Little's-law ceiling" over-ceiling.platform '>=' 0.5
# A pool of 200 cannot pass its ceiling; holding every wait at once, virtual threads can.
verdict_on "virtual threads pass the pool's ceiling" over-ceiling.virtual '>=' 1.5
verdict_on "a waiting virtual thread is no OS thread" threads.virtual '<' "$PLATFORM_THREADS"
verdict_on "a waiting request in the platform pool holds an OS thread" threads.platform '>=' "$PLATFORM_THREADS"

loan_runtime chart cdf --log --title "$CONCURRENCY concurrent requests that each wait $WAIT_MS ms (round $ROUNDS of $ROUNDS)" \
  --out "$OUT/latency-cdf.png" "$OUT/virtual-$ROUNDS.json" "$OUT/platform-$ROUNDS.json"
end_experiment
