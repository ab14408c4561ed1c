#!/usr/bin/env bash
# scrypt providers and the light-request tail beside heavy work.
# (a) `derive`: one derivation alone and a pool of cores threads, per provider: reuse (the default: pure Java over
#     a workspace each derivation permit keeps), bouncycastle (SCrypt.generate: 512 MiB of 128 KiB arrays per
#     derivation) and conscrypt (BoringSSL, native memory): CPU, bytes allocated, collections.
# (b) /books under wrk while heavy clients keep the crypto pool saturated, per provider and crypto pool size (cores
#     vs 4), with the server's GC pauses from -Xlog:gc; bouncycastle under ZGC; the Node.js peer beside.
# (c) the smallest -Xmx with which a default server serves two looping heavy clients and /books, then a burst of
#     heavy requests, without an error other than 503 and without an OutOfMemoryError.
# --short: one round of (b) and one single derivation, but five rounds of (a) (it takes seconds, and efficiencies
# near their goal of 0.9 need several runs: three still let two quick passes disagree); (b) only reuse and bouncycastle on a pool of cores, 3 s of wrk; no
# (c): its burst alone keeps the crypto pool busy for most of a minute (PARTS=abc brings it back, with -Xmx256m only).
# Settings (environment): ROUNDS (3, --short 1; (a) runs at least 5), HEAVY_CLIENTS (4), WRK_SECONDS (10, --short
# 3), HEAPS (MiB; "64 96 128 256", --short "256"), BURST (200), PARTS (any of a, b, c; abc, --short ab).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
CORES=$(nproc)
PROVIDERS=(reuse bouncycastle conscrypt)
SINGLE=$(full_or_short 3 1)                       # derivations alone, per provider and round
POOL_COUNT=$((2 * CORES))                         # derivations on the pool of cores threads
A_ROUNDS=$(( ROUNDS > 5 ? ROUNDS : 5 ))           # rounds of (a)
HEAVY_CLIENTS=${HEAVY_CLIENTS:-4}
WRK_SECONDS=${WRK_SECONDS:-$(full_or_short 10 3)}
read -r -a HEAPS <<< "${HEAPS:-$(full_or_short "64 96 128 256" 256)}"
BURST=${BURST:-200}
PARTS=${PARTS:-$(full_or_short abc ab)}
if [ "$RUN_MODE" = short ]; then
  BOOKS_PROVIDERS=(reuse bouncycastle); POOLS=("$CORES"); BESIDE=false
else
  BOOKS_PROVIDERS=("${PROVIDERS[@]}"); POOLS=("$CORES" 4); BESIDE=true   # BESIDE: /books alone, ZGC, Node.js
fi
require_tools wrk jq
HAVE_NODE=false; command -v node > /dev/null && HAVE_NODE=true
begin_experiment 08-scrypt-providers \
  "How do the scrypt providers compare in CPU, memory and GC, and what do they do to the light requests' tail beside heavy work?"
echo "cores:   nproc = $CORES"
echo "(a)      derive --threads $CORES --count $POOL_COUNT --single $SINGLE (alone, then on a pool of cores), per provider, $A_ROUNDS rounds"
echo "(b)      $HEAVY_CLIENTS closed-loop clients on /member/verify-pooled + wrk -t2 -c50 -d${WRK_SECONDS}s --latency /books,"
echo "         per provider (${BOOKS_PROVIDERS[*]}) x --crypto-threads ${POOLS[*]}$($BESIDE && echo ", plus /books alone, bouncycastle with -XX:+UseZGC and the")"
$BESIDE && echo "         Node.js peer ($($HAVE_NODE && node --version || echo 'no node: skipped'))"
echo "         $ROUNDS rounds interleaved; the servers with -Xlog:gc (G1's pauses; ZGC's are not 'Pause' lines); nothing pinned"
if [[ $PARTS == *c* ]]; then
  echo "(c)      -Xmx ${HEAPS[*]} MiB, default settings: $CORES looping heavy clients + wrk /books for ${WRK_SECONDS}s, then"
  echo "         $BURST concurrent heavy requests"
fi
for s in rounds:"$ROUNDS" a-rounds:"$A_ROUNDS" single:"$SINGLE" pool-count:"$POOL_COUNT" heavy-clients:"$HEAVY_CLIENTS" \
    wrk-seconds:"$WRK_SECONDS" heaps:"${HEAPS[*]}" burst:"$BURST" parts:"$PARTS"; do
  setting "${s%%:*}" "${s#*:}"
done
echo

# gc_pauses LOG FROM_S TO_S: count, total ms and longest ms of the pauses logged between JVM uptime FROM_S and TO_S.
gc_pauses() {
  awk -v from="$2" -v to="$3" '/Pause/ && $NF ~ /ms$/ {
      t = $1; sub(/^\[/, "", t); sub(/s\].*/, "", t); p = $NF; sub(/ms$/, "", p)
      if (t + 0 >= from && t + 0 <= to) { n++; sum += p; if (p + 0 > max) max = p + 0 } }
    END { printf "%d %.0f %.1f\n", n, sum, max }' "$1"
}
uptime_s() { ps -o etimes= -p "$1" | tr -d ' '; }

if [[ $PARTS == *a* ]]; then
echo "--- (a) derivations per second, no server ---"
for round in $(seq 1 "$A_ROUNDS"); do
  for provider in "${PROVIDERS[@]}"; do
    f="$OUT/derive-$provider-$round.json"
    loan_runtime derive --scrypt "$provider" --threads "$CORES" --count "$POOL_COUNT" --single "$SINGLE" \
      --json "$f" > "$OUT/derive-$provider-$round.txt"
    sed 's/^/  /' "$OUT/derive-$provider-$round.txt"
    single=$(json_get "$f" .singleMedianMs)
    figure "derive.single-ms.$provider" "$(fixed 0 "$single")" ms "one derivation alone, $provider"
    figure "derive.cpu-ms.$provider" "$(fixed 0 "$(json_get "$f" .singleCpuMedianMs)")" ms \
      "CPU of one derivation alone, $provider"
    figure "derive.alloc-bytes.$provider" "$(fixed 0 "$(json_get "$f" .singleAllocatedBytes)")" bytes \
      "allocated by the deriving thread during one derivation alone, $provider"
    figure "derive.pool-rate.$provider" "$(fixed 3 "$(json_get "$f" .poolRate)")" "deriv/s" \
      "derivations per second on a pool of cores threads, $provider"
    figure "derive.ideal-rate.$provider" "$(calc "a * 1000 / b" "$CORES" "$single")" "deriv/s" \
      "cores x the single rate, $provider"
    figure "derive.efficiency.$provider" "$(fixed 2 "$(json_get "$f" .efficiency)")" "" \
      "pool rate / (cores x the single rate), $provider"
    figure "derive.cpu-efficiency.$provider" "$(fixed 2 "$(json_get "$f" .cpuEfficiency)")" "" \
      "CPU of one derivation alone / side by side, $provider"
    figure "derive.pool-gcs.$provider" "$(json_get "$f" .gcCollections)" "" "collections during the pool phase, $provider"
  done
done
figure_per_round derive.cpu-ratio.reuse-over-bouncycastle 'a / b' derive.cpu-ms.reuse derive.cpu-ms.bouncycastle "" \
  "CPU of one derivation alone: reuse / bouncycastle"
echo
table derive "derive per provider (medians of $A_ROUNDS rounds; alloc: by the deriving thread during one derivation alone; \
ideal = cores x 1000 / single ms; efficiency = pool rate / ideal; cpu efficiency = CPU alone / side by side; GCs: \
collections during the pool phase)" \
  provider "single ms" "cpu ms" "alloc bytes" "pool deriv/s" "ideal deriv/s" efficiency "cpu efficiency" "pool GCs"
for provider in "${PROVIDERS[@]}"; do
  row=("$provider")
  for k in single-ms cpu-ms alloc-bytes pool-rate ideal-rate efficiency cpu-efficiency pool-gcs; do
    row+=("$(figure_median "derive.$k.$provider")")
  done
  table_row "${row[@]}"
done
table_end
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
  local gc="- - -" pauses total longest
  figure "books.p50.$label" "$(wrk_ms "$base.wrk.txt" 50%)" ms "/books p50, $label"
  figure "books.p99.$label" "$(wrk_ms "$base.wrk.txt" 99%)" ms "/books p99, $label"
  figure "books.max.$label" "$(wrk_ms "$base.wrk.txt" max)" ms "/books max, $label"
  figure "books.rate.$label" "$(fixed 0 "$(wrk_rate "$base.wrk.txt")")" req/s "/books throughput, $label"
  if [ "$provider" != node ]; then
    gc=$(gc_pauses "$base.gc.log" "$from" "$to")
    read -r pauses total longest <<< "$gc"
    figure "gc.pauses.$label" "$pauses" "" "GC pauses during wrk, $label"
    figure "gc.pause-ms.$label" "$total" ms "GC pauses during wrk, in all, $label"
    figure "gc.longest-ms.$label" "$longest" ms "the longest GC pause during wrk, $label"
  fi
  printf '  round %d %-24s p50 %8s ms  p99 %8s ms  max %8s ms  %8s req/s  gc pauses %s\n' "$round" "$label" \
    "$(figure_values "books.p50.$label" | tail -1)" "$(figure_values "books.p99.$label" | tail -1)" \
    "$(figure_values "books.max.$label" | tail -1)" "$(figure_values "books.rate.$label" | tail -1)" \
    "$(awk '{ if ($1 == "-") print "-"; else printf "%d, %s ms in all, longest %s ms", $1, $2, $3 }' <<< "$gc")"
}
CASES=()
$BESIDE && CASES+=("idle reuse $CORES 0")
for provider in "${BOOKS_PROVIDERS[@]}"; do
  for pool in "${POOLS[@]}"; do CASES+=("$provider-pool$pool $provider $pool $HEAVY_CLIENTS"); done
done
if $BESIDE; then
  CASES+=("bouncycastle-pool$CORES-zgc bouncycastle $CORES $HEAVY_CLIENTS -XX:+UseZGC")
  $HAVE_NODE && CASES+=("node-peer node 4 $HEAVY_CLIENTS")
fi
for round in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    read -r label provider pool heavy jvm <<< "$c"
    run_case "$label" "$round" "$provider" "$pool" "$heavy" "$jvm"
  done
done
echo
table books "/books under wrk -t2 -c50 beside $HEAVY_CLIENTS heavy clients (medians of $ROUNDS rounds; GC: the server's \
pauses during wrk, G1's only)" \
  case "p50 ms" "p99 ms" "max ms" "req/s" "GC pauses" "GC pause ms" "longest GC ms"
for c in "${CASES[@]}"; do
  read -r label _ <<< "$c"
  row=("$label")
  for k in books.p50 books.p99 books.max books.rate gc.pauses gc.pause-ms gc.longest-ms; do
    row+=("$(figure_median "$k.$label")")
  done
  table_row "${row[@]}"
done
table_end
# the rounds ran the cases in turn: each round compares cases measured minutes apart, not hours
C=$CORES
figure_per_round books.p99-ratio.reuse-over-bouncycastle 'a / b' "books.p99.reuse-pool$C" \
  "books.p99.bouncycastle-pool$C" "" "/books p99 beside heavy work, pool of cores: reuse / bouncycastle"
figure_per_round gc.pauses-diff.reuse-minus-bouncycastle 'a - b' "gc.pauses.reuse-pool$C" \
  "gc.pauses.bouncycastle-pool$C" "" "GC pauses beside heavy work, pool of cores: reuse - bouncycastle"
if [ ${#POOLS[@]} -gt 1 ]; then
  for provider in "${BOOKS_PROVIDERS[@]}"; do
    figure_per_round "books.p99-ratio.$provider-pool$C-over-pool4" 'a / b' "books.p99.$provider-pool$C" \
      "books.p99.$provider-pool4" "" "/books p99 beside heavy work, $provider: pool of cores / pool of 4"
  done
fi
if $BESIDE; then
  figure_per_round books.p99-ratio.bouncycastle-zgc-over-g1 'a / b' "books.p99.bouncycastle-pool$C-zgc" \
    "books.p99.bouncycastle-pool$C" "" "/books p99 beside heavy work, bouncycastle, pool of cores: ZGC / G1"
  if $HAVE_NODE; then
    figure_per_round books.p99-ratio.reuse-over-node 'a / b' "books.p99.reuse-pool$C" books.p99.node-peer "" \
      "/books p99 beside heavy work: reuse, pool of cores / the Node.js peer"
  fi
fi
fi

if [[ $PARTS == *c* ]]; then
echo "--- (c) the smallest heap for the default server ---"
declare -A HEAP_OK
table heaps "the default server with a small heap: $CORES looping heavy clients and wrk on /books for ${WRK_SECONDS}s, \
then $BURST heavy requests at once (works: the looping clients' requests all answered 200, /books all 2xx, the burst \
only 200 or 503, no OutOfMemoryError, and /runtime answered afterwards)" \
  "-Xmx MiB" "max derivations" workspaces "heavy ok" "heavy errors" "/books p99 ms" "burst of $BURST" "OOM lines" works
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
  figure "heap.books-p99.$heap" "$books_p99" ms "/books p99 beside looping heavy clients, -Xmx${heap}m"
  figure "heap.works.$heap" "$($works && echo 1 || echo 0)" "" "the default server works with -Xmx${heap}m (1 yes, 0 no)"
  table_row "$heap" "$(json_num derivationLimit <<< "$runtime")" "$(json_num scryptWorkspaces <<< "$runtime")" \
    "${heavy_ok:-?}" "${heavy_errors:-?}" "$books_p99" "${burst_errors:-?}" "$oom" "$works"
done
table_end
smallest=-
for heap in "${HEAPS[@]}"; do
  if ${HEAP_OK[$heap]}; then smallest=$heap; break; fi
done
figure heap.smallest-working "$smallest" MiB "the smallest -Xmx that worked for the default server, of ${HEAPS[*]} MiB"
fi

if [[ $PARTS == *a* ]]; then
  verdict_on "reuse: one derivation allocates under 64 KiB" derive.alloc-bytes.reuse '<' 65536
  verdict_on "reuse: one derivation takes less CPU than bouncycastle's" derive.cpu-ratio.reuse-over-bouncycastle '<' 1
  for provider in "${PROVIDERS[@]}"; do
    # runs of the same provider spread by several percent here: closer to 0.9 than that is too close to call
    verdict_on "$provider: a pool of cores threads derives >= 0.9 x cores x the single rate" \
      "derive.efficiency.$provider" '>=' 0.9 within=5%
    verdict_on "$provider: side by side, a derivation costs <= 1/0.9 of its CPU alone" \
      "derive.cpu-efficiency.$provider" '>=' 0.9 within=5%
  done
fi
if [[ $PARTS == *b* ]]; then
  verdict_on "/books p99 beside heavy work: reuse < bouncycastle, pool of cores" \
    books.p99-ratio.reuse-over-bouncycastle '<' 1
  verdict_on "GC pauses beside heavy work: reuse < bouncycastle, pool of cores" \
    gc.pauses-diff.reuse-minus-bouncycastle '<' 0
  if [ ${#POOLS[@]} -gt 1 ]; then
    for provider in "${BOOKS_PROVIDERS[@]}"; do
      verdict_on "/books p99 beside heavy work: $provider pool of cores <= pool of 4" \
        "books.p99-ratio.$provider-pool$CORES-over-pool4" '<=' 1
    done
  fi
  if $BESIDE; then
    verdict_on "/books p99 beside heavy work: bouncycastle pool of cores with ZGC < with G1" \
      books.p99-ratio.bouncycastle-zgc-over-g1 '<' 1
    if $HAVE_NODE; then
      verdict_on "/books p99 beside heavy work, unpinned: reuse pool of cores <= the Node.js peer" \
        books.p99-ratio.reuse-over-node '<=' 1
    fi
  fi
fi
if [[ $PARTS == *c* ]]; then
  if [ -n "${HEAP_OK[256]:-}" ]; then
    verdict "-Xmx256m works for the default server" \
      "looping clients all 200, /books all 2xx, burst only 200 or 503, no OutOfMemoryError, /runtime answers after" \
      "${HEAP_OK[256]}"
  else
    verdict "-Xmx256m works for the default server" \
      "looping clients all 200, /books all 2xx, burst only 200 or 503, no OutOfMemoryError, /runtime answers after" \
      "not measured: HEAPS has no 256"
  fi
fi
end_experiment
