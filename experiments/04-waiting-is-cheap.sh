#!/usr/bin/env bash
# Waiting is cheap: C concurrent clients (10,000) whose requests each wait 100 ms (GET /catalog/lookup?ms=100), served
# by virtual threads and by a pool of 200 platform threads. Little's law (throughput = requests held at once / wait)
# bounds the pool at 200 / 0.1 s; virtual threads are bounded by what holds C waits at once. Each run is a sustained
# rate at a fixed concurrency over RUN_S seconds from wrk (after a warm-up run of WARM_S), never one burst, which would
# time how fast a client can launch it. The server runs on CPU 0 and the client on CPU 1, and CPU 1's busy share is
# recorded: a run whose client kept its CPU busy is client-bound and settles nothing. The project's own `load` then
# runs the same concurrency against the virtual-thread server, as a check on it (its rate over wrk's). In rounds,
# each on fresh servers, the two models in turn (which goes first alternates from round to round).
# Settings (environment): ROUNDS (3, --short 1), CONCURRENCY (10000, --short 2000), WAIT_MS (100), RUN_S (10,
# --short 5), WARM_S (5, --short 3).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
CONCURRENCY=${CONCURRENCY:-$(full_or_short 10000 2000)}
WAIT_MS=${WAIT_MS:-100}
RUN_S=${RUN_S:-$(full_or_short 10 5)}
WARM_S=${WARM_S:-$(full_or_short 5 3)}
PLATFORM_THREADS=200
begin_experiment 04-waiting-is-cheap \
  "Do requests that wait cost virtual threads little, while a pool of platform threads caps them at Little's law?"
echo "requests: $CONCURRENCY concurrent clients of GET /catalog/lookup?ms=$WAIT_MS for ${RUN_S}s (wrk -t1, after a"
echo "          ${WARM_S}s warm-up run); then, against virtual threads, load at the same concurrency as a check on it"
echo "servers:  virtual (default carriers) and --threads platform --platform-threads $PLATFORM_THREADS, fresh each"
echo "          round, on CPU 0; clients on CPU 1"
echo "rounds:   $ROUNDS (about $((ROUNDS * (3 * RUN_S + 2 * WARM_S + 30))) s in all)"
echo "limits:   ulimit -n $(ulimit -n), net.core.somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?)"
setting rounds "$ROUNDS"
setting concurrency "$CONCURRENCY"
setting wait-ms "$WAIT_MS"
setting platform-threads "$PLATFORM_THREADS"
setting run-seconds "$RUN_S"
setting warm-up-seconds "$WARM_S"
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

# _sample_server PID FILE: the server's thread count and resident memory (KiB), a line every 0.2 s, until it exits or
# this sampler is stopped.
_sample_server() {
  while kill -0 "$1" 2>/dev/null; do
    awk '/^Threads:/ { t = $2 } /^VmRSS:/ { r = $2 } END { print t, r }' "/proc/$1/status" >> "$2" 2>/dev/null || true
    sleep 0.2
  done
}

tick_s=$(getconf CLK_TCK)
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
    url="$SERVER_URL/catalog/lookup?ms=$WAIT_MS"
    taskset -c 1 wrk -t1 -c"$CONCURRENCY" -d"${WARM_S}s" --timeout 120s "$url" > "$OUT/$run.warm.wrk" 2>&1 || true
    start_bg "$OUT/$run.samples.log" _sample_server "$SERVER_PID" "$OUT/$run.samples"
    sampler=$BG_PID
    server_before=$(awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat")
    client_before=$(cpu_ticks 1)
    taskset -c 1 wrk -t1 -c"$CONCURRENCY" -d"${RUN_S}s" --timeout 120s --latency "$url" > "$OUT/$run.wrk" 2>&1 || true
    client_busy=$(cpu_busy_share "$client_before" "$(cpu_ticks 1)")
    server_ticks=$(( $(awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat") - server_before ))
    stop_pid "$sampler"
    echo "wrk:  $(wrk_rate "$OUT/$run.wrk") req/s, p50 $(wrk_ms "$OUT/$run.wrk" 50%) ms," \
      "p99 $(wrk_ms "$OUT/$run.wrk" 99%) ms; client CPU busy $client_busy; $(wrk_errors "$OUT/$run.wrk")"
    if [ "$model" = virtual ]; then
      # The project's own client against the same server: a check on it, not a figure of the server. Against the
      # platform pool it would only queue behind the pool as wrk did. It exits 1 when a request failed: counted.
      taskset -c 1 "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS" \
        --concurrency "$CONCURRENCY" --duration "${RUN_S}s" --warmup-requests "$CONCURRENCY" --timeout 120s \
        --label "$model threads, round $round" --json "$OUT/$run.load.json" > "$OUT/$run.load.txt" || true
      echo "load: $(fixed 1 "$(json_get "$OUT/$run.load.json" .throughputPerS)") req/s," \
        "$(json_get "$OUT/$run.load.json" .failed) failed," \
        "its own CPU $(json_get "$OUT/$run.load.json" .client.cpuCores) of 1"
      figure load.virtual "$(fixed 1 "$(json_get "$OUT/$run.load.json" .throughputPerS)")" req/s \
        "load's throughput, the same concurrency, virtual threads"
    fi
    stop_server "$SERVER_PID"
    rate=$(wrk_rate "$OUT/$run.wrk")
    [ -z "$(wrk_errors "$OUT/$run.wrk")" ] || rate=-
    figure "rate.$model" "$rate" req/s "throughput (wrk), $model threads"
    figure "p50.$model" "$(wrk_ms "$OUT/$run.wrk" 50%)" ms "p50 latency (wrk), $model threads"
    figure "p99.$model" "$(wrk_ms "$OUT/$run.wrk" 99%)" ms "p99 latency (wrk), $model threads"
    figure "threads.$model" "$(awk 'max < $1 { max = $1 } END { print max + 0 }' "$OUT/$run.samples")" "" \
      "peak OS threads of the server, $model threads"
    figure "rss.$model" "$(awk 'max < $2 { max = $2 } END { printf "%.1f", max / 1024 }' "$OUT/$run.samples")" MiB \
      "peak RSS of the server, $model threads"
    figure "server-cores.$model" "$(calc 'a / b / c' "$server_ticks" "$tick_s" "$RUN_S")" "" \
      "the server's CPU over the run (cores of its 1), $model threads"
    figure "client-busy.$model" "$client_busy" "" "share of CPU 1 (wrk) busy over the run, $model threads"
    figure "client-bound.$model" "$(if holds "$client_busy" '>=' 0.95; then echo 1; else echo 0; fi)" "" \
      "1 when wrk kept its CPU busy (the rate may be the client's ceiling), $model threads"
    figure "over-ceiling.$model" "$(calc 'a / b' "$rate" "${ceiling[platform]}")" "" \
      "throughput over the pool's Little's-law ceiling, $model threads"
    [ "$model" = platform ] || figure load-over-wrk.virtual "$(calc 'a / b' "$(figure_values load.virtual | tail -1)" \
      "$rate")" "" "load's rate over wrk's against the same virtual-thread server"
    echo
  done
done

table results "$CONCURRENCY concurrent clients of $WAIT_MS ms waits for ${RUN_S}s (wrk), medians of $ROUNDS round(s) \
(Little's law: requests held at once / wait; server cores: its CPU over the run, of CPU 0; client CPU: CPU 1 busy; \
load/wrk: the project's load client's rate over wrk's)" \
  threads "req/s" "Little's law req/s" "p50 ms" "p99 ms" "peak OS threads" "peak RSS MiB" "server cores" \
  "client CPU" "load/wrk"
for model in virtual platform; do
  table_row "$model" "$(figure_median "rate.$model")" "${ceiling[$model]}" "$(figure_median "p50.$model")" \
    "$(figure_median "p99.$model")" "$(figure_median "threads.$model")" "$(figure_median "rss.$model")" \
    "$(figure_median "server-cores.$model")" "$(figure_median "client-busy.$model")" \
    "$(if [ "$model" = virtual ]; then figure_median load-over-wrk.virtual; else echo -; fi)"
done
table_end

verdict_on "$PLATFORM_THREADS platform threads cap throughput at Little's law" over-ceiling.platform '<=' 1.1
verdict_on "the platform pool still reaches half of its Little's-law ceiling" over-ceiling.platform '>=' 0.5
# A pool of 200 cannot pass its ceiling; holding every wait at once, virtual threads can, unless the client is what
# stops them: then the figure is the client's and settles nothing.
verdict_on "virtual threads pass the pool's ceiling" over-ceiling.virtual '>=' 1.5 client=client-bound.virtual
verdict_on "the project's load client keeps up with wrk at the same concurrency" load-over-wrk.virtual '>=' 0.8
verdict_on "a waiting virtual thread is no OS thread" threads.virtual '<' "$PLATFORM_THREADS"
verdict_on "a waiting request in the platform pool holds an OS thread" threads.platform '>=' "$PLATFORM_THREADS"

end_experiment
