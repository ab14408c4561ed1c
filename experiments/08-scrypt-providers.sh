#!/usr/bin/env bash
# scrypt providers and the light-request tail beside heavy work.
# (a) `derive`: one derivation alone and a pool of cores threads, per provider: reuse (the default: pure Java over
#     a workspace each derivation permit keeps), bouncycastle (SCrypt.generate: 512 MiB of 128 KiB arrays per
#     derivation) and conscrypt (BoringSSL, native memory): CPU, bytes allocated, collections.
# (b) /books under wrk while heavy clients keep the crypto pool saturated, per provider and crypto pool size (cores
#     vs 4), with the server's GC pauses from -Xlog:gc; bouncycastle under ZGC; the Node.js peer beside.
# (c) the smallest -Xmx with which a default server serves two looping heavy clients and /books, then a burst of
#     heavy requests, without an error other than 503 and without an OutOfMemoryError.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

ROUNDS=${ROUNDS:-3}
CORES=$(nproc)
PROVIDERS=(reuse bouncycastle conscrypt)
POOLS=("$CORES" 4)
HEAVY_CLIENTS=${HEAVY_CLIENTS:-4}
WRK_SECONDS=${WRK_SECONDS:-10}
read -r -a HEAPS <<< "${HEAPS:-64 96 128 256}"
BURST=${BURST:-200}
PARTS=${PARTS:-abc}    # any of a, b, c
require_tools wrk jq
HAVE_NODE=false; command -v node > /dev/null && HAVE_NODE=true
begin_experiment 08-scrypt-providers
echo "cores:   nproc = $CORES"
echo "(a)      derive --threads $CORES --count $((2 * CORES)) --single 3 (alone, then on a pool of cores), per provider, $ROUNDS rounds"
echo "(b)      $HEAVY_CLIENTS closed-loop clients on /member/verify-pooled + wrk -t2 -c50 -d${WRK_SECONDS}s --latency /books,"
echo "         per provider x --crypto-threads ${POOLS[*]}, plus /books alone, bouncycastle with -XX:+UseZGC and the"
echo "         Node.js peer ($($HAVE_NODE && node --version || echo 'no node: skipped')), $ROUNDS rounds interleaved;"
echo "         the servers with -Xlog:gc (G1's pauses; ZGC's are not 'Pause' lines); nothing pinned"
echo "(c)      -Xmx ${HEAPS[*]} MiB, default settings: $CORES looping heavy clients + wrk /books for ${WRK_SECONDS}s, then"
echo "         $BURST concurrent heavy requests"
echo

# gc_pauses LOG FROM_S TO_S: count, total ms and longest ms of the pauses logged between JVM uptime FROM_S and TO_S.
gc_pauses() {
  awk -v from="$2" -v to="$3" '/Pause/ && $NF ~ /ms$/ {
      t = $1; sub(/^\[/, "", t); sub(/s\].*/, "", t); p = $NF; sub(/ms$/, "", p)
      if (t + 0 >= from && t + 0 <= to) { n++; sum += p; if (p + 0 > max) max = p + 0 } }
    END { printf "%d %.0f %.1f\n", n, sum, max }' "$1"
}
uptime_s() { ps -o etimes= -p "$1" | tr -d ' '; }

declare -A EFF CPUEFF CPU_MS ALLOC P99 PAUSES
if [[ $PARTS == *a* ]]; then
echo "--- (a) derivations per second, no server ---"
for round in $(seq 1 "$ROUNDS"); do
  for provider in "${PROVIDERS[@]}"; do
    loan_runtime derive --scrypt "$provider" --threads "$CORES" --count $((2 * CORES)) --single 3 \
      --json "$OUT/derive-$provider-$round.json" > "$OUT/derive-$provider-$round.txt"
    sed 's/^/  /' "$OUT/derive-$provider-$round.txt"
  done
done
echo
printf '%-13s %10s %8s %12s %13s %10s %10s %8s %10s\n' provider single-ms cpu-ms alloc-bytes "pool-deriv/s" ideal efficiency cpu-eff pool-GCs
for provider in "${PROVIDERS[@]}"; do
  files=("$OUT"/derive-"$provider"-*.json)
  col() { for f in "${files[@]}"; do json_get "$f" ".$1"; done | median; }
  single=$(col singleMedianMs); cpu=$(col singleCpuMedianMs); alloc=$(col singleAllocatedBytes)
  rate=$(col poolRate); eff=$(col efficiency); cpueff=$(col cpuEfficiency); gcs=$(col gcCollections)
  ideal=$(awk -v c="$CORES" -v s="$single" 'BEGIN { printf "%.3f", c * 1000 / s }')
  EFF[$provider]=$(printf '%.2f' "$eff"); CPUEFF[$provider]=$(printf '%.2f' "$cpueff")
  CPU_MS[$provider]=$(printf '%.0f' "$cpu"); ALLOC[$provider]=$(printf '%.0f' "$alloc")
  printf '%-13s %10.0f %8.0f %12.0f %13.3f %10s %10.2f %8.2f %10.0f\n' "$provider" "$single" "$cpu" "$alloc" "$rate" \
    "$ideal" "$eff" "$cpueff" "$gcs"
done
echo "(medians of $ROUNDS rounds; alloc-bytes: allocated by the deriving thread during one derivation alone;"
echo " ideal = cores x 1000 / single-ms; efficiency = pool rate / ideal; pool-GCs: collections during the pool phase)"
echo
fi

if [[ $PARTS == *b* ]]; then
echo "--- (b) /books beside a saturated crypto pool ---"
run_case() {    # run_case LABEL ROUND PROVIDER POOL HEAVY_CLIENTS [JVM_OPTION]; PROVIDER node: the Node.js peer
  local label=$1 round=$2 provider=$3 pool=$4 heavy=$5 base="$OUT/$1-$2" jvm=() heavy_pid=""
  if [ "$provider" = node ]; then
    start_peer node "$base.server.log"
  else
    jvm=(--jvm "-Xlog:gc:file=$base.gc.log")
    [ -z "${6:-}" ] || jvm+=(--jvm "$6")
    start_server "$base.server.log" "${jvm[@]}" --scrypt "$provider" --crypto-threads "$pool"
  fi
  if [ "$heavy" -gt 0 ]; then
    start_bg "$base.heavy.txt" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /member/verify-pooled \
      --concurrency "$heavy" --duration $((WRK_SECONDS + 8))s --timeout 120s
    heavy_pid=$BG_PID
    # until the pool is busy: the first derivations are running
    local deadline=$((SECONDS + 30))
    until curl -fs "$SERVER_URL/runtime" | grep -q '"derivationsRunning":[1-9]'; do
      [ $SECONDS -lt $deadline ] || break
      sleep 0.2
    done
    sleep 2   # past the first derivations' JIT warm-up
  fi
  wrk -t2 -c50 -d2s "$SERVER_URL/books" > /dev/null   # the light route's JIT, under the same load
  local from; from=$(uptime_s "$SERVER_PID")
  wrk -t2 -c50 -d"${WRK_SECONDS}s" --latency "$SERVER_URL/books" > "$base.wrk.txt"
  local to; to=$(($(uptime_s "$SERVER_PID") + 1))
  [ -z "$heavy_pid" ] || stop_pid "$heavy_pid"
  stop_server "$SERVER_PID"
  local p50 p99 max rps gc="- - -"
  p50=$(wrk_ms "$base.wrk.txt" 50%)
  p99=$(wrk_ms "$base.wrk.txt" 99%)
  max=$(wrk_ms "$base.wrk.txt" max)
  rps=$(wrk_rate "$base.wrk.txt")
  [ "$provider" = node ] || gc=$(gc_pauses "$base.gc.log" "$from" "$to")
  echo "$label $round $p50 $p99 $max $rps $gc" >> "$OUT/books.txt"
  printf '  round %d %-24s p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  %8.0f req/s  gc pauses %s\n' \
    "$round" "$label" "$p50" "$p99" "$max" "$rps" \
    "$(awk '{ if ($1 == "-") print "-"; else printf "%d, %s ms in all, longest %s ms", $1, $2, $3 }' <<< "$gc")"
}
: > "$OUT/books.txt"
CASES=("idle reuse $CORES 0")
for provider in "${PROVIDERS[@]}"; do
  for pool in "${POOLS[@]}"; do CASES+=("$provider-pool$pool $provider $pool $HEAVY_CLIENTS"); done
done
CASES+=("bouncycastle-pool$CORES-zgc bouncycastle $CORES $HEAVY_CLIENTS -XX:+UseZGC")
$HAVE_NODE && CASES+=("node-peer node 4 $HEAVY_CLIENTS")
for round in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    read -r label provider pool heavy jvm <<< "$c"
    run_case "$label" "$round" "$provider" "$pool" "$heavy" "$jvm"
  done
done
echo
printf '%-26s %10s %10s %10s %10s %10s %12s\n' case p50-ms p99-ms max-ms req/s gc-pauses gc-longest-ms
for c in "${CASES[@]}"; do
  read -r label _ <<< "$c"
  col() { awk -v l="$label" -v n="$1" '$1 == l && $n != "-" { print $n }' "$OUT/books.txt" | median; }
  P99[$label]=$(printf '%.1f' "$(col 4)")
  PAUSES[$label]=$(col 7); PAUSES[$label]=${PAUSES[$label]:--}
  printf '%-26s %10.2f %10.2f %10.2f %10.0f %10s %12s\n' "$label" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" \
    "${PAUSES[$label]}" "$(col 9 || true)"
done
echo "(medians of $ROUNDS rounds)"
echo
fi

declare -A HEAP_OK
if [[ $PARTS == *c* ]]; then
echo "--- (c) the smallest heap for the default server ---"
printf '%-7s %15s %10s %16s %10s %22s %8s %s\n' -Xmx max-derivations workspaces "heavy (looping)" books-p99 "burst of $BURST" OOM works
for heap in "${HEAPS[@]}"; do
  base="$OUT/heap-$heap"
  start_server "$base.server.log" --jvm "-Xmx${heap}m" --jvm "-Xlog:gc:file=$base.gc.log"
  start_bg "$base.heavy.txt" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /member/verify-pooled \
    --concurrency "$CORES" --duration $((WRK_SECONDS + 4))s --timeout 120s
  heavy_pid=$BG_PID
  sleep 2
  wrk -t2 -c50 -d"${WRK_SECONDS}s" --latency "$SERVER_URL/books" > "$base.wrk.txt" 2>&1 || true
  wait_pid "$heavy_pid" || true
  "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /member/verify-pooled --concurrency "$BURST" \
    --requests "$BURST" --timeout 300s > "$base.burst.txt" 2>&1 || true
  runtime=$(curl -s --max-time 5 "$SERVER_URL/runtime" || true)
  alive=true; kill -0 "$SERVER_PID" 2>/dev/null || alive=false
  stop_server "$SERVER_PID"
  heavy_errors=$(awk '$1 == "errors" { $1 = ""; print substr($0, 2) }' "$base.heavy.txt")
  heavy_ok=$(awk '$1 == "requests" { print $4 - $6 }' "$base.heavy.txt" | tr -d ',)')
  burst_errors=$(awk '$1 == "errors" { $1 = ""; print substr($0, 2) }' "$base.burst.txt")
  books_p99=$(wrk_ms "$base.wrk.txt" 99%)
  books_bad=$(grep -c 'Non-2xx\|Socket errors' "$base.wrk.txt" || true)
  oom=$(grep -c 'OutOfMemoryError' "$base.server.log" || true)
  # works: the looping clients got only answers, /books only 2xx, the burst only 200 or 503, no OutOfMemoryError,
  # and the server still answered /runtime afterwards
  works=false
  if $alive && [ -n "$runtime" ] && [ "$heavy_errors" = none ] && [ "${books_bad:-0}" -eq 0 ] && [ "${oom:-0}" -eq 0 ] \
    && [[ "$burst_errors" =~ ^(none|status\ 503=[0-9]+)$ ]]; then
    works=true
  fi
  HEAP_OK[$heap]=$works
  printf '%-7s %15s %10s %16s %10s %22s %8s %s\n' "${heap}m" "$(json_num derivationLimit <<< "$runtime")" \
    "$(json_num scryptWorkspaces <<< "$runtime")" "${heavy_ok:-?} ok, $heavy_errors" "$books_p99" \
    "$burst_errors" "$oom" "$works"
done
echo "(works: the looping clients' requests all answered 200, /books all 2xx, the burst only 200 or 503, no"
echo " OutOfMemoryError, and /runtime answered afterwards)"
echo
fi

if [[ $PARTS == *a* ]]; then
  verdict "reuse: one derivation allocates under 64 KiB (${ALLOC[reuse]} bytes; bouncycastle ${ALLOC[bouncycastle]})" \
    "$(truth holds "${ALLOC[reuse]}" '<' 65536)"
  verdict "reuse: one derivation takes less CPU than bouncycastle's (${CPU_MS[reuse]} vs ${CPU_MS[bouncycastle]} ms)" \
    "$(truth holds "${CPU_MS[reuse]}" '<' "${CPU_MS[bouncycastle]}")"
  for provider in "${PROVIDERS[@]}"; do
    verdict "$provider: a pool of $CORES (= cores) derives >= 0.9 x cores x the single rate (efficiency ${EFF[$provider]})" \
      "$(truth holds "${EFF[$provider]}" '>=' 0.9)"
    verdict "$provider: side by side, a derivation costs <= 1/0.9 of its CPU alone (cpu efficiency ${CPUEFF[$provider]})" \
      "$(truth holds "${CPUEFF[$provider]}" '>=' 0.9)"
  done
fi
if [[ $PARTS == *b* ]]; then
  verdict "/books p99 beside heavy work: reuse pool $CORES (${P99[reuse-pool$CORES]} ms) < bouncycastle pool $CORES (${P99[bouncycastle-pool$CORES]} ms)" \
    "$(truth holds "${P99[reuse-pool$CORES]}" '<' "${P99[bouncycastle-pool$CORES]}")"
  verdict "GC pauses beside heavy work: reuse pool $CORES (${PAUSES[reuse-pool$CORES]}) < bouncycastle pool $CORES (${PAUSES[bouncycastle-pool$CORES]})" \
    "$(truth holds "${PAUSES[reuse-pool$CORES]}" '<' "${PAUSES[bouncycastle-pool$CORES]}")"
  for provider in "${PROVIDERS[@]}"; do
    verdict "/books p99 beside heavy work: $provider pool $CORES (${P99[$provider-pool$CORES]} ms) <= pool 4 (${P99[$provider-pool4]} ms)" \
      "$(truth holds "${P99[$provider-pool$CORES]}" '<=' "${P99[$provider-pool4]}")"
  done
  verdict "/books p99 beside heavy work: bouncycastle pool $CORES with ZGC (${P99[bouncycastle-pool$CORES-zgc]} ms) < with G1 (${P99[bouncycastle-pool$CORES]} ms)" \
    "$(truth holds "${P99[bouncycastle-pool$CORES-zgc]}" '<' "${P99[bouncycastle-pool$CORES]}")"
  if $HAVE_NODE; then
    verdict "/books p99 beside heavy work, unpinned: reuse pool $CORES (${P99[reuse-pool$CORES]} ms) <= the Node.js peer (${P99[node-peer]} ms)" \
      "$(truth holds "${P99[reuse-pool$CORES]}" '<=' "${P99[node-peer]}")"
  fi
fi
if [[ $PARTS == *c* ]]; then
  smallest=-
  for heap in "${HEAPS[@]}"; do
    if ${HEAP_OK[$heap]}; then smallest=$heap; break; fi
  done
  verdict "the smallest -Xmx that works for the default server: ${smallest} MiB; -Xmx256m works" \
    "${HEAP_OK[256]:-false}"
fi
