#!/usr/bin/env bash
# The pool you forgot: a real PostgreSQL (started here, experiments/lib start_postgres) behind the store, and CLIENTS
# concurrent GET /catalog/lookup?ms=WAIT_MS&inside=db (the wait is the database's: SELECT pg_sleep over a pooled
# connection), closed loop, for pool sizes POOLS, with virtual threads and with --threads platform (200 threads); a
# light /books client at LIGHT_RATE a second beside. Per run: the db route's throughput (200s a second) against the
# pool's Little's-law bound (pool / wait), the p99 of both kinds, the pool's wait for a connection (p99 of the last
# 10 s, the server's own), and what the excess gets once a wait passes the pool's timeout (--store-pool-timeout, 1 s):
# 503 store_unavailable, never 500. And how long a request held its connection (the server's own, mean of the last
# 10 s): Little's law's W, which grows past the query's wait when the database is slow to answer, so a pool is what
# caps exactly when throughput x hold fills it. The server on CPU 0; PostgreSQL and the clients on CPU 1 (its busy
# share is printed), so a pool whose bound is past REACH req/s is expected not to be what caps.
# Settings (environment): CLIENTS (1000), WAIT_MS (20), POOLS ("10 50 200"), RUN_S (15, --short 6), LIGHT_RATE (50),
# ROUNDS (3, --short 2), REACH (3000).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq curl taskset psql
CLIENTS=${CLIENTS:-1000}
WAIT_MS=${WAIT_MS:-20}
read -r -a POOLS <<< "${POOLS:-10 50 200}"
RUN_S=${RUN_S:-$(full_or_short 15 6)}
LIGHT_RATE=${LIGHT_RATE:-50}
ROUNDS=${ROUNDS:-$(full_or_short 3 2)}   # two even in a quick pass: one run cannot tell a goal met from noise
REACH=${REACH:-3000}
[ "$(nproc)" -ge 2 ] || { echo "15-connection-pool.sh needs 2 CPUs (the server on CPU 0)" >&2; exit 1; }
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((CLIENTS * 3)) ]; then ulimit -n "$(ulimit -Hn)" 2>/dev/null || true; fi
begin_experiment 15-connection-pool "With a real database behind a connection pool, what caps throughput, and who waits where, with virtual and with platform threads?"
echo "load:    $CLIENTS concurrent /catalog/lookup?ms=$WAIT_MS&inside=db for ${RUN_S}s per run; /books at ${LIGHT_RATE}/s beside"
for s in clients:"$CLIENTS" wait-ms:"$WAIT_MS" pools:"${POOLS[*]}" run-seconds:"$RUN_S" light-rate:"$LIGHT_RATE" \
    rounds:"$ROUNDS" reach:"$REACH"; do
  setting "${s%%:*}" "${s#*:}"
done
make_temp_dir
start_postgres "$TEMP_DIR"
taskset -a -c -p 1 "$POSTGRES_PID" > /dev/null
export LOAN_STORE_PASSWORD=$POSTGRES_PASSWORD
echo "postgres: pid $POSTGRES_PID, port $POSTGRES_PORT (on CPU 1), $(psql --version | head -1)"
setting postgres "$(psql --version | head -1)"

client=(taskset -c 1)
MODELS=("virtual|" "platform|--threads platform")
for ((round = 1; round <= ROUNDS; round++)); do
  echo "--- round $round of $ROUNDS ---"
  for pool in "${POOLS[@]}"; do
    for m in "${MODELS[@]}"; do
      IFS='|' read -r model options <<< "$m"
      key=$model.pool$pool
      base="$OUT/$model-$pool-r$round"
      # shellcheck disable=SC2086 # the options are words
      start_server "$base.server.log" --cpu 0 --store "$POSTGRES_STORE" --store-pool "$pool" $options
      # HikariCP opens the pool's connections in the background: all of them before the load
      wait_until 60 bash -c "curl -s '$SERVER_URL/runtime' | jq -e '.storePool.pool.idle == $pool' > /dev/null" \
        || echo "the pool of $pool did not fill within 60 s"
      "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS&inside=db" \
        --concurrency 200 --requests 2000 --timeout 30s > "$base.warm.txt" || true
      # the light client shares CPU 1 with PostgreSQL and the 1,000 clients: a higher priority keeps its own waits out
      # of what it measures
      start_bg "$base.light.txt" "${client[@]}" nice -n -15 "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /books \
        --rate "$LIGHT_RATE" --warmup-requests "$LIGHT_RATE" --duration "${RUN_S}s" --timeout 30s --json "$base.light.json"
      light_pid=$BG_PID
      read -r busy0 all0 < <(cpu_ticks 1)
      "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS&inside=db" \
        --concurrency "$CLIENTS" --duration "${RUN_S}s" --timeout 30s --watch-pid "$SERVER_PID" \
        --json "$base.db.json" > "$base.db.txt" || true
      read -r busy1 all1 < <(cpu_ticks 1)
      curl -s --max-time 30 "$SERVER_URL/runtime" > "$base.runtime.json"
      wait_pid "$light_pid" || true
      stop_server "$SERVER_PID"
      bound=$(calc 'a * 1000 / b' "$pool" "$WAIT_MS")
      figure "db.rate.$key" "$(fixed 0 "$(json_get "$base.db.json" .goodputPerS)")" req/s "db waits answered 200 a second: $key"
      figure "db.bound-share.$key" "$(calc 'a / b' "$(json_get "$base.db.json" .goodputPerS)" "$bound")" "" \
        "db 200s a second / the pool's bound (pool / wait): $key"
      figure "db.p99.$key" "$(ok_p99 0 "$base.db.json")" ms "db wait p99 of the 200s: $key"
      figure "db.503.$key" "$(json_get "$base.db.json" '.errors["status 503"] // 0')" "" "db requests answered 503: $key"
      figure "db.500.$key" "$(json_get "$base.db.json" '.errors["status 500"] // 0')" "" "db requests answered 500: $key"
      figure "pool.hold.$key" "$(json_get "$base.runtime.json" .storePool.holdMs.last10s.meanMs)" ms \
      "how long a request held its connection, mean of the last 10 s: $key"
    # Little's law: connections in use on average = throughput x hold; over the pool's size, its busy share
    figure "pool.in-use.$key" "$(fixed 2 "$(calc 'a * b / 1000 / c' "$(json_get "$base.db.json" .goodputPerS)" \
      "$(figure_values "pool.hold.$key" | tail -1)" "$pool")")" "" "connections in use / the pool (Little's law): $key"
    figure "pool.wait-p99.$key" "$(json_get "$base.runtime.json" .storePool.waitMs.last10s.p99Ms)" ms \
        "the pool's wait for a connection, p99 of the last 10 s: $key"
      figure "books.p99.$key" "$(ok_p99 1 "$base.light.json")" ms "/books p99: $key"
      figure "books.failed.$key" "$(json_get "$base.light.json" .failed)" "" "/books requests that failed: $key"
      figure "threads.$key" "$(json_get "$base.db.json" .server.peakThreads)" "" "the server's peak OS threads: $key"
      figure "cpu.$key" "$(calc 'a / b' "$(json_get "$base.db.json" .server.cpuS)" "$(json_get "$base.db.json" .elapsedS)")" \
        cores "the server's CPU during the run, in cores (it has one): $key"
      figure "cpu1.$key" "$(fixed 2 "$(calc 'a / b' $((busy1 - busy0)) $((all1 - all0)))")" "" \
        "CPU 1's busy share during the run (PostgreSQL, the clients): $key"
      figure "carrier-delay.p99.$key" "$(json_get "$base.runtime.json" .carrierDelay.last10s.p99Ms)" ms \
        "the server's carrier delay, p99 of the last 10 s: $key"
      printf '  %-9s pool %-4s db %7s req/s (%5s of the bound %6s)  p99 %6s ms  503s %6s  500s %s  pool wait p99 %8s ms  /books p99 %8s ms  CPU 1 %s\n' \
        "$model" "$pool" "$(figure_values "db.rate.$key" | tail -1)" "$(figure_values "db.bound-share.$key" | tail -1)" \
        "$bound" "$(figure_values "db.p99.$key" | tail -1)" "$(figure_values "db.503.$key" | tail -1)" \
        "$(figure_values "db.500.$key" | tail -1)" "$(figure_values "pool.wait-p99.$key" | tail -1)" \
        "$(figure_values "books.p99.$key" | tail -1)" "$(figure_values "cpu1.$key" | tail -1)"
    done
  done
done

# capped_by KEY: what was saturated in run KEY (medians): the pool (90% of it in use, or requests waiting for a
# connection 10 times the query's wait at p99), CPU 1 (the clients and PostgreSQL), the server's CPU, or none of them
# ("-").
capped_by() {
  if holds "$(figure_median "pool.in-use.$1")" '>=' 0.9 \
      || holds "$(figure_median "pool.wait-p99.$1")" '>=' $((10 * WAIT_MS)); then echo pool
  elif holds "$(figure_median "cpu1.$1")" '>=' 0.95; then echo "CPU 1 (clients, PostgreSQL)"
  elif holds "$(figure_median "cpu.$1")" '>=' 0.95; then echo "server CPU"
  else echo -
  fi
}

echo
table pool "medians of $ROUNDS ${RUN_S}-second run(s) each: $CLIENTS concurrent ${WAIT_MS} ms waits in PostgreSQL, \
/books at ${LIGHT_RATE}/s beside; bound: pool / ${WAIT_MS} ms (Little's law); p99s of the 200s; pool wait: the server's \
own, p99 of the last 10 s; hold: a connection's, mean of the last 10 s; in use: req/s x hold / pool (Little's law); \
CPU: the server's, in cores (it has one); CPU 1: busy share of the CPU PostgreSQL and the clients share; capped by: \
the pool when 90% of it is in use or its wait p99 is 10 times the query's, else a CPU busy 95% of the time or more (CPU 1 first: then the clients and \
PostgreSQL set the pace, not the server), else none of them" \
  threads pool "db req/s" bound "of bound" "hold ms" "in use" "db p99 ms" "503s" "500s" "pool wait p99 ms" \
  "/books p99 ms" "carrier delay p99 ms" "CPU cores" "CPU 1" "OS threads" "capped by"
for pool in "${POOLS[@]}"; do
  for m in "${MODELS[@]}"; do
    IFS='|' read -r model _ <<< "$m"
    key=$model.pool$pool
    table_row "$model" "$pool" "$(figure_median "db.rate.$key")" "$(calc 'a * 1000 / b' "$pool" "$WAIT_MS")" \
      "$(figure_median "db.bound-share.$key")" "$(figure_median "pool.hold.$key")" "$(figure_median "pool.in-use.$key")" \
      "$(figure_median "db.p99.$key")" "$(figure_median "db.503.$key")" \
      "$(figure_median "db.500.$key")" "$(figure_median "pool.wait-p99.$key")" "$(figure_median "books.p99.$key")" \
      "$(figure_median "carrier-delay.p99.$key")" "$(figure_median "cpu.$key")" "$(figure_median "cpu1.$key")" \
      "$(figure_median "threads.$key")" "$(capped_by "$key")"
  done
done
table_end

verdict_on "no run passes the pool's Little's-law bound, whatever the thread model" 'db.bound-share.*' '<=' 1.05
for pool in "${POOLS[@]}"; do
  bound=$(calc 'a * 1000 / b' "$pool" "$WAIT_MS")
  if holds "$bound" '<=' "$REACH"; then
    verdict_on "a pool of $pool is what caps, in both models: requests queue for its connections (wait p99 at least 10 \
times the query's)" "pool.wait-p99.*.pool$pool" '>=' $((10 * WAIT_MS))
  else
    verdict_on "a pool of $pool (bound $bound req/s) is not what caps: its connections are idle half the time or more" \
      "pool.in-use.*.pool$pool" '<' 0.5
  fi
done
verdict_on "past the pool's timeout the excess gets 503, never 500" 'db.500.*' '==' 0
first=${POOLS[0]}
figure_per_round "books.platform-over-virtual.pool$first" 'a / b' "books.p99.platform.pool$first" \
  "books.p99.virtual.pool$first" "" "/books p99 with platform threads / with virtual threads, pool $first"
verdict_on "with virtual threads /books stays fast while the pool of $first is saturated (p99 under 100 ms)" \
  "books.p99.virtual.pool$first" '<' 100
verdict_on "with 200 platform threads the requests queue in the server: /books waits 5 times as long or more" \
  "books.platform-over-virtual.pool$first" '>=' 5
end_experiment
