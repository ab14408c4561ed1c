#!/usr/bin/env bash
# Waiting is cheap: C concurrent clients (10,000) whose requests each wait 100 ms (GET /catalog/lookup?ms=100), served
# by virtual threads and by a pool of 200 platform threads. Little's law (throughput = requests held at once / wait)
# bounds the pool at 200 / 0.1 s; virtual threads are bounded by what holds C waits at once. Each run is a sustained
# rate at a fixed concurrency over RUN_S seconds, measured after a warm-up that opens the C keep-alive connections
# (never one burst, which would time how fast the client can launch it). The server runs on CPU 0 and the client on
# CPU 1; `load` reports its own CPU, and against the virtual server wrk runs the same concurrency on the same CPU as a
# second client: a rate the client could not exceed is marked client-bound and settles nothing. In rounds, each on
# fresh servers, the two models in turn (which goes first alternates from round to round).
# Settings (environment): ROUNDS (3, --short 1), CONCURRENCY (10000, --short 2000), WAIT_MS (100), RUN_S (10,
# --short 5).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
CONCURRENCY=${CONCURRENCY:-$(full_or_short 10000 2000)}
WAIT_MS=${WAIT_MS:-100}
RUN_S=${RUN_S:-$(full_or_short 10 5)}
PLATFORM_THREADS=200
begin_experiment 04-waiting-is-cheap \
  "Do requests that wait cost virtual threads little, while a pool of platform threads caps them at Little's law?"
echo "requests: $CONCURRENCY concurrent clients of GET /catalog/lookup?ms=$WAIT_MS for ${RUN_S}s, after a warm-up of"
echo "          $CONCURRENCY requests that opens the keep-alive connections (connecting is not measured) and warms the JIT"
echo "servers:  virtual (default carriers) and --threads platform --platform-threads $PLATFORM_THREADS, fresh each round,"
echo "          on CPU 0; clients on CPU 1: load, and wrk beside it against the virtual server"
echo "rounds:   $ROUNDS (about $((ROUNDS * (3 * RUN_S + 25))) s in all)"
echo "limits:   ulimit -n $(ulimit -n), net.core.somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?)"
setting rounds "$ROUNDS"
setting concurrency "$CONCURRENCY"
setting wait-ms "$WAIT_MS"
setting platform-threads "$PLATFORM_THREADS"
setting run-seconds "$RUN_S"
require_tools wrk
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((2 * CONCURRENCY + 1000)) ]; then
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fi
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
    start_server "$OUT/$run.server.log" --cpu 0 "${options[@]}" --drain-delay 0
    echo "--- round $round of $ROUNDS: $model threads ($(date -u +%H:%M:%S)) ---"
    taskset -c 1 "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS" \
      --concurrency "$CONCURRENCY" --duration "${RUN_S}s" --warmup-requests "$CONCURRENCY" --timeout 120s \
      --watch-pid "$SERVER_PID" --label "$model threads, round $round" --json "$OUT/$run.json" | tee "$OUT/$run.txt"
    if [ "$model" = virtual ]; then
      # The same concurrency from wrk, on the same CPU: what a second client reaches against the same server.
      taskset -c 1 wrk -t1 -c"$CONCURRENCY" -d"${RUN_S}s" --timeout 120s \
        "$SERVER_URL/catalog/lookup?ms=$WAIT_MS" > "$OUT/$run.wrk" 2>&1 || true
      echo "wrk, the same $CONCURRENCY connections on CPU 1: $(wrk_rate "$OUT/$run.wrk") req/s $(wrk_errors "$OUT/$run.wrk")"
    fi
    stop_server "$SERVER_PID"
    echo
  done
  for model in virtual platform; do
    json=$OUT/$model-$round.json
    rate=$(fixed 1 "$(json_get "$json" .throughputPerS)")
    figure "rate.$model" "$rate" req/s "throughput, $model threads"
    figure "failed.$model" "$(json_get "$json" .failed)" "" "requests that failed, $model threads"
    figure "p50.$model" "$(fixed 1 "$(json_get "$json" .latencyMs.p50)")" ms "p50 latency, $model threads"
    figure "p99.$model" "$(fixed 1 "$(json_get "$json" .latencyMs.p99)")" ms "p99 latency, $model threads"
    figure "threads.$model" "$(json_get "$json" .server.peakThreads)" "" "peak OS threads of the server, $model threads"
    figure "rss.$model" "$(fixed 1 "$(json_get "$json" .server.peakRssMiB)")" MiB "peak RSS of the server, $model threads"
    figure "server-cores.$model" "$(calc 'a / b' "$(json_get "$json" .server.cpuS)" "$(json_get "$json" .elapsedS)")" \
      "" "the server's CPU over the run (cores), $model threads"
    figure "client-cores.$model" "$(fixed 2 "$(json_get "$json" .client.cpuCores)")" "" \
      "load's own CPU over the run (cores of its 1), $model threads"
    figure "client-bound.$model" "$(jq -r 'if .client.bound then 1 else 0 end' "$json" 2>/dev/null || echo -)" "" \
      "1 when load kept its CPU busy (its rate may be its own ceiling), $model threads"
    figure "over-ceiling.$model" "$(calc 'a / b' "$rate" "${ceiling[platform]}")" "" \
      "throughput over the pool's Little's-law ceiling, $model threads"
  done
  figure wrk.virtual "$(wrk_rate "$OUT/virtual-$round.wrk")" req/s "wrk's throughput, the same concurrency, virtual threads"
  figure load-over-wrk "$(calc 'a / b' "$(figure_values rate.virtual | tail -1)" "$(figure_values wrk.virtual | tail -1)")" \
    "" "load's rate over wrk's against the same virtual-thread server"
done

table results "$CONCURRENCY concurrent clients of $WAIT_MS ms waits for ${RUN_S}s, medians of $ROUNDS round(s) (Little's law: \
requests held at once / wait; cores: CPU over the run, the server's of CPU 0 and load's of CPU 1)" \
  threads "req/s" "Little's law req/s" "p50 ms" "p99 ms" "peak OS threads" "peak RSS MiB" "server cores" "client cores"
for model in virtual platform; do
  table_row "$model" "$(figure_median "rate.$model")" "${ceiling[$model]}" "$(figure_median "p50.$model")" \
    "$(figure_median "p99.$model")" "$(figure_median "threads.$model")" "$(figure_median "rss.$model")" \
    "$(figure_median "server-cores.$model")" "$(figure_median "client-cores.$model")"
done
table_row "virtual, wrk as the client" "$(figure_median wrk.virtual)" "${ceiling[virtual]}" - - - - - -
table_end

verdict_on "$PLATFORM_THREADS platform threads cap throughput at Little's law" over-ceiling.platform '<=' 1.1
verdict_on "the platform pool still reaches half of its Little's-law ceiling" over-ceiling.platform '>=' 0.5
# A pool of 200 cannot pass its ceiling; holding every wait at once, virtual threads can, unless the client is what
# stops them: then the figure is the client's and settles nothing.
verdict_on "the load client keeps up with wrk at the same concurrency (not the limit it measures)" load-over-wrk '>=' 0.8
verdict_on "the load client's CPU is not saturated against virtual threads" client-bound.virtual '==' 0
verdict_on "virtual threads pass the pool's ceiling" over-ceiling.virtual '>=' 1.5 client=client-bound.virtual
verdict_on "a waiting virtual thread is no OS thread" threads.virtual '<' "$PLATFORM_THREADS"
verdict_on "a waiting request in the platform pool holds an OS thread" threads.platform '>=' "$PLATFORM_THREADS"

loan_runtime chart cdf --log --title "$CONCURRENCY concurrent clients whose requests wait $WAIT_MS ms (round $ROUNDS of $ROUNDS)" \
  --out "$OUT/latency-cdf.png" "$OUT/virtual-$ROUNDS.json" "$OUT/platform-$ROUNDS.json"
end_experiment
