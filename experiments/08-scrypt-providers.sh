#!/usr/bin/env bash
# scrypt providers and the light-request tail beside heavy work. (a) `derive`: one derivation alone and a pool of
# cores threads, for BouncyCastle (pure Java, 64 MiB of heap garbage per derivation) and Conscrypt (BoringSSL, 64 MiB
# of native memory). (b) /books under wrk while heavy clients keep the crypto pool saturated, per provider and
# crypto pool size (cores vs 4), with the server's GC pauses from -Xlog:gc; and BouncyCastle under ZGC.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib.sh
source experiments/lib/stats.sh

NAME=08-scrypt-providers
OUT=experiments/results/$NAME
ROUNDS=${ROUNDS:-3}
CORES=$(nproc)
PROVIDERS=(bouncycastle conscrypt)
POOLS=("$CORES" 4)
HEAVY_CLIENTS=${HEAVY_CLIENTS:-4}
WRK_SECONDS=${WRK_SECONDS:-10}
PARTS=${PARTS:-ab}    # a, b or ab
mkdir -p "$OUT"
build_once
command -v wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 1; }

print_header "$NAME"
echo "cores:   nproc = $CORES"
echo "(a)      derive --threads $CORES --count $((2 * CORES)) --single 3 (alone, then on a pool of cores), per provider, $ROUNDS rounds"
echo "(b)      $HEAVY_CLIENTS closed-loop clients on /member/verify-pooled + wrk -t2 -c50 -d${WRK_SECONDS}s --latency /books,"
echo "         per provider x --crypto-threads ${POOLS[*]}, plus /books alone and bouncycastle with -XX:+UseZGC,"
echo "         $ROUNDS rounds interleaved; server with -Xlog:gc (G1's pauses; ZGC's are not 'Pause' lines)"
echo "output:  $OUT"
echo

LOAD_PIDS=()
stop_loads() {
    local pid
    for pid in "${LOAD_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    LOAD_PIDS=()
}
trap 'stop_loads; stop_servers' EXIT

# wrk prints latencies as 850.00us, 12.34ms or 1.20s: to milliseconds.
to_ms() { awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.2f\n", v }'; }
# gc_pauses LOG FROM_S TO_S: count, total ms and longest ms of the pauses logged between JVM uptime FROM_S and TO_S.
gc_pauses() {
    awk -v from="$2" -v to="$3" '/Pause/ && $NF ~ /ms$/ {
            t = $1; sub(/^\[/, "", t); sub(/s\].*/, "", t); p = $NF; sub(/ms$/, "", p)
            if (t + 0 >= from && t + 0 <= to) { n++; sum += p; if (p + 0 > max) max = p + 0 } }
        END { printf "%d %.0f %.1f\n", n, sum, max }' "$1"
}
uptime_s() { ps -o etimes= -p "$1" | tr -d ' '; }

declare -A EFF CPUEFF CPU_MS P99
if [[ $PARTS == *a* ]]; then
echo "--- (a) derivations per second, no server ---"
for round in $(seq 1 "$ROUNDS"); do
    for provider in "${PROVIDERS[@]}"; do
        loan_runtime derive --scrypt "$provider" --threads "$CORES" --count $((2 * CORES)) --single 3 \
            --json "$OUT/derive-$provider-$round.json" > "$OUT/derive-$provider-$round.txt"
        sed 's/^/  /' "$OUT/derive-$provider-$round.txt"
    done
done
json_field() { grep -o "\"$2\" : [0-9.]*" "$1" | awk '{ print $3 }'; }
echo
printf '%-13s %12s %12s %14s %12s %12s %10s\n' provider single-ms cpu-ms "pool-deriv/s" ideal efficiency cpu-eff
for provider in "${PROVIDERS[@]}"; do
    files=("$OUT"/derive-"$provider"-*.json)
    single=$(for f in "${files[@]}"; do json_field "$f" singleMedianMs; done | median)
    cpu=$(for f in "${files[@]}"; do json_field "$f" singleCpuMedianMs; done | median)
    rate=$(for f in "${files[@]}"; do json_field "$f" poolRate; done | median)
    eff=$(for f in "${files[@]}"; do json_field "$f" efficiency; done | median)
    cpueff=$(for f in "${files[@]}"; do json_field "$f" cpuEfficiency; done | median)
    ideal=$(awk -v c="$CORES" -v s="$single" 'BEGIN { printf "%.3f", c * 1000 / s }')
    EFF[$provider]=$(printf '%.2f' "$eff"); CPUEFF[$provider]=$(printf '%.2f' "$cpueff"); CPU_MS[$provider]=$(printf '%.0f' "$cpu")
    printf '%-13s %12.0f %12.0f %14.3f %12s %12.2f %10.2f\n' "$provider" "$single" "$cpu" "$rate" "$ideal" "$eff" "$cpueff"
done
echo "(medians of $ROUNDS rounds; ideal = cores x 1000 / single-ms; efficiency = pool rate / ideal, per round)"
echo
fi

if [[ $PARTS == *b* ]]; then

echo "--- (b) /books beside a saturated crypto pool ---"
run_case() {    # run_case LABEL ROUND PROVIDER POOL HEAVY_CLIENTS [JVM_OPTION]
    local label=$1 round=$2 provider=$3 pool=$4 heavy=$5 jvm=${6:-} base="$OUT/$1-$2"
    JAVA_TOOL_OPTIONS="-Xlog:gc:file=$base.gc.log $jvm" start_server "$base.server.log" --scrypt "$provider" \
        --crypto-threads "$pool"
    if [ "$heavy" -gt 0 ]; then
        # java itself in the background (not a function's subshell), so that its PID is the one stopped
        "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /member/verify-pooled --concurrency "$heavy" \
            --duration $((WRK_SECONDS + 6))s --timeout 120s > "$base.heavy.txt" 2>&1 &
        LOAD_PIDS+=($!)
        # until the pool is busy: the first derivations are running
        local deadline=$((SECONDS + 30))
        until curl -fs "$SERVER_URL/runtime" | grep -q '"derivationsRunning":[1-9]'; do
            [ $SECONDS -lt $deadline ] || break
            sleep 0.2
        done
        sleep 2   # past the first derivations' JIT warm-up
    fi
    local from; from=$(uptime_s "$SERVER_PID")
    wrk -t2 -c50 -d"${WRK_SECONDS}s" --latency "$SERVER_URL/books" > "$base.wrk.txt"
    local to; to=$(($(uptime_s "$SERVER_PID") + 1))
    stop_loads
    stop_server "$SERVER_PID"
    local p50 p99 max rps gc
    p50=$(awk '$1 == "50%" { print $2 }' "$base.wrk.txt" | to_ms)
    p99=$(awk '$1 == "99%" { print $2 }' "$base.wrk.txt" | to_ms)
    max=$(awk '$1 == "Latency" { print $4; exit }' "$base.wrk.txt" | to_ms)
    rps=$(awk '$1 == "Requests/sec:" { print $2 }' "$base.wrk.txt")
    gc=$(gc_pauses "$base.gc.log" "$from" "$to")
    echo "$label $round $p50 $p99 $max $rps $gc" >> "$OUT/books.txt"
    printf '  round %d %-22s p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  %8.0f req/s  gc pauses %s\n' \
        "$round" "$label" "$p50" "$p99" "$max" "$rps" "$(awk '{ printf "%d, %s ms in all, longest %s ms", $1, $2, $3 }' <<< "$gc")"
}
: > "$OUT/books.txt"
CASES=("idle bouncycastle $CORES 0")
for provider in "${PROVIDERS[@]}"; do
    for pool in "${POOLS[@]}"; do CASES+=("$provider-pool$pool $provider $pool $HEAVY_CLIENTS"); done
done
CASES+=("bouncycastle-pool$CORES-zgc bouncycastle $CORES $HEAVY_CLIENTS -XX:+UseZGC")
for round in $(seq 1 "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        read -r label provider pool heavy jvm <<< "$c"
        run_case "$label" "$round" "$provider" "$pool" "$heavy" "$jvm"
    done
done
echo
printf '%-24s %10s %10s %10s %10s %10s %12s\n' case p50-ms p99-ms max-ms req/s gc-pauses gc-longest-ms
for c in "${CASES[@]}"; do
    read -r label _ <<< "$c"
    col() { awk -v l="$label" -v n="$1" '$1 == l { print $n }' "$OUT/books.txt" | median; }
    P99[$label]=$(printf '%.0f' "$(col 4)")
    printf '%-24s %10.2f %10.2f %10.2f %10.0f %10s %12s\n' "$label" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" \
        "$(col 7)" "$(col 9)"
done
echo "(medians of $ROUNDS rounds)"
echo
fi


if [[ $PARTS == *a* ]]; then
    verdict "conscrypt: one derivation takes less CPU than bouncycastle's (${CPU_MS[conscrypt]} vs ${CPU_MS[bouncycastle]} ms)" \
        "$(holds "${CPU_MS[conscrypt]}" '<' "${CPU_MS[bouncycastle]}" && echo true || echo false)"
    for provider in "${PROVIDERS[@]}"; do
        verdict "$provider: a pool of $CORES (= cores) derives >= 0.9 x cores x the single rate (efficiency ${EFF[$provider]})" \
            "$(holds "${EFF[$provider]}" '>=' 0.9 && echo true || echo false)"
        verdict "$provider: side by side, a derivation costs <= 1/0.9 of its CPU alone (cpu efficiency ${CPUEFF[$provider]})" \
            "$(holds "${CPUEFF[$provider]}" '>=' 0.9 && echo true || echo false)"
    done
fi
if [[ $PARTS == *b* ]]; then
    verdict "/books p99 beside heavy work: conscrypt pool $CORES (${P99[conscrypt-pool$CORES]} ms) < bouncycastle pool 4 (${P99[bouncycastle-pool4]} ms)" \
        "$(holds "${P99[conscrypt-pool$CORES]}" '<' "${P99[bouncycastle-pool4]}" && echo true || echo false)"
    verdict "/books p99 beside heavy work: bouncycastle pool $CORES (${P99[bouncycastle-pool$CORES]} ms) <= pool 4 (${P99[bouncycastle-pool4]} ms)" \
        "$(holds "${P99[bouncycastle-pool$CORES]}" '<=' "${P99[bouncycastle-pool4]}" && echo true || echo false)"
    verdict "/books p99 beside heavy work: bouncycastle pool $CORES with ZGC (${P99[bouncycastle-pool$CORES-zgc]} ms) < with G1 (${P99[bouncycastle-pool$CORES]} ms)" \
        "$(holds "${P99[bouncycastle-pool$CORES-zgc]}" '<' "${P99[bouncycastle-pool$CORES]}" && echo true || echo false)"
fi
