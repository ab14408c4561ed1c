#!/usr/bin/env bash
# Waiting is cheap: 10,000 concurrent requests that each wait 100 ms (GET /catalog/lookup?ms=100), served by virtual
# threads and by a pool of 200 platform threads. Little's law (throughput = concurrency / wait) predicts both:
# virtual threads hold every wait at once; the platform pool holds 200 and queues the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

CONCURRENCY=${CONCURRENCY:-10000}
WAIT_MS=${WAIT_MS:-100}
PLATFORM_THREADS=200
begin_experiment 04-waiting-is-cheap
echo "requests: $CONCURRENCY concurrent GET /catalog/lookup?ms=$WAIT_MS, after a warm-up of as many requests"
echo "          that opens the $CONCURRENCY keep-alive connections (so connecting is not measured) and warms the JIT"
echo "servers:  virtual (default carriers) and --threads platform --platform-threads $PLATFORM_THREADS"
echo "limits:   ulimit -n $(ulimit -n), net.core.somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?)"
echo

declare -A wall rate p50 p99 threads rss predicted
for model in virtual platform; do
  options=()
  holds=$CONCURRENCY
  if [ "$model" = platform ]; then
    options=(--threads platform --platform-threads "$PLATFORM_THREADS")
    holds=$PLATFORM_THREADS
  fi
  start_server "$OUT/$model.server.log" "${options[@]}"
  loan_runtime load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS" --concurrency "$CONCURRENCY" \
    --requests "$CONCURRENCY" --warmup-requests "$CONCURRENCY" --timeout 120s --watch-pid "$SERVER_PID" --label "$model threads" \
    --json "$OUT/$model.json" | tee "$OUT/$model.txt"
  stop_server "$SERVER_PID"
  echo
  wall[$model]=$(field "$OUT/$model.txt" '^elapsed' 2)
  rate[$model]=$(field "$OUT/$model.txt" '^throughput' 2)
  p50[$model]=$(field "$OUT/$model.txt" '^p50 ' 2)
  p99[$model]=$(field "$OUT/$model.txt" '^p99 ' 2)
  threads[$model]=$(field "$OUT/$model.txt" '^server' 7)
  rss[$model]=$(field "$OUT/$model.txt" '^server' 12)
  # Little's law: requests in the system = throughput x time in the system.
  predicted[$model]=$(awk "BEGIN { printf \"%.0f\", $holds / ($WAIT_MS / 1000) }")
done

echo "--- results (Little's law: throughput = requests held at once / wait of $WAIT_MS ms) ---"
printf '%-9s %8s %12s %14s %10s %10s %13s %14s\n' threads wall-s req/s "Little's-law" p50-ms p99-ms peak-threads peak-rss-MiB
for model in virtual platform; do
  printf '%-9s %8s %12s %14s %10s %10s %13s %14s\n' "$model" "${wall[$model]}" "${rate[$model]}" \
    "${predicted[$model]}" "${p50[$model]}" "${p99[$model]}" "${threads[$model]}" "${rss[$model]}"
done
echo

verdict "$PLATFORM_THREADS platform threads cap throughput at Little's law (0.5 to 1.1 x ${predicted[platform]} req/s)" \
    "$(holds "${rate[platform]}" '<=' "1.1 * ${predicted[platform]}" \
      && holds "${rate[platform]}" '>=' "0.5 * ${predicted[platform]}" && echo true || echo false)"
# A pool of 200 cannot pass its ceiling; holding every wait at once, virtual threads can.
verdict "virtual threads pass the pool's ceiling (throughput >= 1.5 x ${predicted[platform]} req/s)" \
    "$(holds "${rate[virtual]}" '>=' "1.5 * ${predicted[platform]}" && echo true || echo false)"
verdict "a waiting virtual thread is no OS thread (peak OS threads: virtual < $PLATFORM_THREADS <= platform)" \
    "$(holds "${threads[virtual]}" '<' "$PLATFORM_THREADS" \
      && holds "${threads[platform]}" '>=' "$PLATFORM_THREADS" && echo true || echo false)"

loan_runtime chart cdf --log --title "$CONCURRENCY concurrent requests that each wait $WAIT_MS ms" \
  --out "$OUT/latency-cdf.png" "$OUT/virtual.json" "$OUT/platform.json"
