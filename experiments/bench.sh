#!/usr/bin/env bash
# Side-by-side benchmark: the loan service against two peers, in one run on this machine.
#   - a bare Helidon server (experiments/peers/BareHelidon.java) answering the same bytes from byte arrays: the
#     ceiling for this stack;
#   - a Node.js server (experiments/peers/loan-peer.js): the runtime the lesson measures, single process and
#     cluster.
# Figures: 1 /books keep-alive throughput; 2 /books beside a saturated crypto pool (throughput, p99);
# 3 scrypt cost (one derivation, derivations/s with a pool of one thread per core); 4 worker start and
# replacement after kill -9; 5 waiting work at 1,000 and 10,000 concurrent 100 ms waits (Little's law, memory).
# Prints the configuration, one section per figure, then a table: target, project, peer, ratio, goal, met.
# JSON: experiments/results/bench/bench.json.
#
# Usage: experiments/bench.sh [--quick | --smoke]
#   --quick  short runs, one repetition (development)
#   --smoke  every stage once, for seconds; figures printed, no verdicts (CI)
# Needs wrk for throughput and node for the Node.js peer; skips what needs a missing tool and says so.
# BENCH_JVM_FLAGS (space-separated) go to every JVM server, the project's and the bare Helidon peer alike.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=full
case "${1:-}" in
    "") ;;
    --quick) MODE=quick ;;
    --smoke) MODE=smoke ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (allowed: --quick, --smoke)" >&2; exit 2 ;;
esac

# JDK, build, OUT (emptied), free_port and json_pid
NAME=bench
. experiments/lib/cluster.sh
. experiments/lib/stats.sh
build_once

read -r -a JVM_FLAGS <<< "${BENCH_JVM_FLAGS:-}"
CORES=$(nproc)
case $MODE in
    full)  REPS=3; WARM_S=3; DUR_S=8; RATE=200; SCRYPT_SINGLE=3; SCRYPT_PER_CLIENT=3; WAIT_LEVELS=(1000 10000)
           WAIT_S=5 ;;
    quick) REPS=1; WARM_S=1; DUR_S=3; RATE=200; SCRYPT_SINGLE=1; SCRYPT_PER_CLIENT=1; WAIT_LEVELS=(1000 10000)
           WAIT_S=3 ;;
    smoke) REPS=1; WARM_S=1; DUR_S=1; RATE=100; SCRYPT_SINGLE=1; SCRYPT_PER_CLIENT=1; WAIT_LEVELS=(200)
           WAIT_S=1 ;;
esac
WAIT_MS=100
HAVE_WRK=false; command -v wrk >/dev/null && HAVE_WRK=true
WRK_VERSION=missing   # wrk --version exits 1 after printing it
$HAVE_WRK && WRK_VERSION=$( (wrk --version 2>&1 || true) | head -1 | cut -d' ' -f2)
HAVE_NODE=false; command -v node >/dev/null && HAVE_NODE=true
# Throughput figures put the servers on CPU 0 and every client on CPU 1, so that no client takes a server's core:
# unpinned, wrk and a server fight for the same cores and the ratio says more about the scheduler than the server.
# A server so confined sees one CPU and runs its one-CPU defaults (the JVM: one carrier, one crypto thread, the
# Serial collector; Node.js is one event loop beside libuv's pool anyway). BENCH_PIN=false, one CPU, or no taskset:
# everything runs unpinned.
PIN_SERVER=(); PIN_CLIENT=()
if [ "${BENCH_PIN:-true}" = true ] && [ "$CORES" -ge 2 ] && command -v taskset >/dev/null; then
    PIN_SERVER=(taskset -c 0); PIN_CLIENT=(taskset -c 1)
fi
SERVER_CPU=(); CLIENT_CPU=()   # what start_server and the clients use now: pinned() or unpinned() sets them
pinned() { SERVER_CPU=("${PIN_SERVER[@]}"); CLIENT_CPU=("${PIN_CLIENT[@]}"); }
unpinned() { SERVER_CPU=(); CLIENT_CPU=(); }
# wrk threads: one per CPU the client has
wrk_threads() { [ ${#CLIENT_CPU[@]} -gt 0 ] && echo 1 || echo 2; }

# ---------------------------------------------------------------------------------------------------------------
# Processes: everything started here is recorded and stopped by PID on exit.
PIDS=()
WORKER_PIDS=()

stop_pid() {   # PID [SIGNAL]: SIGNAL (TERM), SIGKILL after 15 s
    local pid=$1 deadline=$((SECONDS + 15))
    kill -"${2:-TERM}" "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $SECONDS -ge $deadline ]; then kill -KILL "$pid" 2>/dev/null || true; break; fi
        sleep 0.05
    done
    wait "$pid" || true
} 2>/dev/null   # no "Killed" notice from bash, whichever command reaps the process: the kill was ours

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
    # cluster workers whose primary did not take them along
    for pid in "${WORKER_PIDS[@]}"; do
        if tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -q 'loan-runtime\|loan-peer'; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
}
trap cleanup EXIT

# start_bg LOG CMD...: runs CMD in the background, output to LOG; sets BG_PID.
start_bg() {
    local log=$1; shift
    "$@" > "$log" 2>&1 &
    BG_PID=$!
    PIDS+=("$BG_PID")
}

# await_line LOG PATTERN PID [COUNT]: waits (180 s at most: a JVM starts slowly on a busy machine) for COUNT (1)
# lines matching PATTERN in LOG while PID lives.
await_line() {
    local deadline=$((SECONDS + 180))
    local n
    while n=$(grep -cs "$2" "$1" || true); [ "${n:-0}" -lt "${4:-1}" ]; do
        if ! kill -0 "$3" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
            echo "bench: no '$2' from pid $3:" >&2; tail -20 "$1" >&2; exit 1
        fi
        sleep 0.05
    done
}

# start_server KIND LOG [OPTIONS...]: KIND project (serve OPTIONS), bare (BareHelidon) or node (loan-peer.js;
# OPTIONS are environment assignments such as UV_THREADPOOL_SIZE=2), on SERVER_CPU. Waits for the start-up line;
# sets SERVER_PID and SERVER_URL.
start_server() {
    local kind=$1 log=$2; shift 2
    case $kind in
        project) start_bg "$log" "${SERVER_CPU[@]}" "$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" serve --port 0 "$@" ;;
        bare)    start_bg "$log" "${SERVER_CPU[@]}" "$JAVA" "${JVM_FLAGS[@]}" -cp "$JAR:target/libs/*" \
                     experiments/peers/BareHelidon.java 0 ;;
        node)    start_bg "$log" "${SERVER_CPU[@]}" env "$@" node experiments/peers/loan-peer.js --port 0 ;;
    esac
    SERVER_PID=$BG_PID
    await_line "$log" 'address=http://' "$SERVER_PID"
    SERVER_URL=$(grep -o 'address=http://[^ ]*' "$log" | head -1 | cut -d= -f2)
}

stop_server() {   # PID [SIGNAL]
    stop_pid "$1" "${2:-TERM}"
    local rest=() p
    for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || rest+=("$p"); done
    PIDS=("${rest[@]}")
}

loan_load() { "${CLIENT_CPU[@]}" "$JAVA" -jar "$JAR" load "$@"; }

# ---------------------------------------------------------------------------------------------------------------
# Numbers. A missing figure is "-" and stays "-" through every computation.
num() { [[ "${1:-}" =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

calc() {   # calc 'EXPR of a, b, c' A [B [C]]: the value, or - when an input is missing
    local e=$1 x; shift
    for x in "$@"; do num "$x" || { echo -; return; }; done
    awk -v a="${1:-0}" -v b="${2:-0}" -v c="${3:-0}" "BEGIN { v = $e; w = v < 0 ? -v : v
        if (w >= 100) printf \"%.0f\", v; else if (w >= 1) printf \"%.2f\", v; else printf \"%.3f\", v }" 2>/dev/null | grep -v -i 'nan\|inf' || echo -
}


wrk_rate() { awk '/^Requests\/sec:/ { print $2; f = 1 } END { if (!f) print "-" }' "$1"; }

wrk_p99_ms() {   # the 99% line of wrk --latency, in ms
    awk '$1 == "99%" { v = $2; u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
                       m = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1
                       if (m > 0) { printf "%.2f\n", v * m; f = 1 } }
         END { if (!f) print "-" }' "$1"
}

wrk_errors() { awk '/Socket errors|Non-2xx/ { $1 = $1; printf "%s; ", $0 } END { print "" }' "$1"; }

load_field() {   # load_field FILE NAME: the value on load's NAME line (throughput, p50, p99 ...)
    awk -v k="$2" '$1 == k { print $2; f = 1; exit } END { if (!f) print "-" }' "$1"
}

json_num() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -; }

# ---------------------------------------------------------------------------------------------------------------
# Results: every target is one row; every figure goes to bench.json.
ROWS=()
FIGURES=()

figure() {   # figure KEY VALUE: one measured number for the JSON
    FIGURES+=("$1=$2")
}

# met VALUE OP LIMIT -> yes | no | n/a (missing figure) | smoke (no verdicts in --smoke)
met() {
    num "$1" || { echo n/a; return; }
    [ "$MODE" = smoke ] && { echo smoke; return; }
    awk "BEGIN { exit !(($1) $2 ($3)) }" && echo yes || echo no
}

# row TARGET PROJECT PEER_LABEL PEER RATIO GOAL MET
row() {
    ROWS+=("$1|$2|$3|$4|$5|$6|$7")
}

skip() { echo "skipped: $*"; }

section() { echo; echo "=== $* ==="; }

# Worker start and replacement: first_answer_ms and replacement_ms (see their contract there; a failure gives "-").
. experiments/lib/start.sh

# ---------------------------------------------------------------------------------------------------------------
section "configuration"
echo "mode:     $MODE (repetitions $REPS, wrk warm-up ${WARM_S}s, timed runs ${DUR_S}s, open-loop rate ${RATE}/s)"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit:   $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD -- src pom.xml experiments 2>/dev/null || echo ' (with uncommitted changes)')"
echo "machine:  nproc $CORES ($(uname -m)), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM, kernel $(uname -r)"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average: other work on the machine moves every number)"
echo "java:     $JAVA $("$JAVA" -version 2>&1 | head -1)"
echo "jvm flags: ${JVM_FLAGS[*]:-(none, as 'java -jar target/loan-runtime.jar')}"
if $HAVE_NODE; then echo "node:     $(command -v node) $(node --version)"; else echo "node:     missing: the Node.js peer is skipped"; fi
if $HAVE_WRK; then echo "wrk:      $WRK_VERSION"; else echo "wrk:      missing: the wrk throughput figures are skipped"; fi
# 10,000 connections need as many descriptors on each side
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 25000 ]; then ulimit -n "$(ulimit -Hn)" 2>/dev/null || true; fi
echo "ulimit -n: $(ulimit -n) (somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?))"
if [ ${#PIN_SERVER[@]} -gt 0 ]; then
    echo "pinning: figures 1 and 2 run servers on CPU 0 (${PIN_SERVER[*]}) and clients on CPU 1 (${PIN_CLIENT[*]})"
else
    echo "pinning: none (BENCH_PIN=${BENCH_PIN:-true}, nproc $CORES)"
fi
echo "output:   $OUT"


# wrk_runs NAME URL [WRK_OPTIONS...]: a warm-up, then REPS timed runs, on CLIENT_CPU; files $OUT/NAME.N.wrk.
wrk_runs() {
    local name=$1 url=$2; shift 2
    local i
    "${CLIENT_CPU[@]}" wrk -d"${WARM_S}s" "$@" "$url" > "$OUT/$name.warmup.wrk" 2>&1 || true
    for i in $(seq "$REPS"); do
        "${CLIENT_CPU[@]}" wrk -d"${DUR_S}s" "$@" "$url" > "$OUT/$name.$i.wrk" 2>&1 || true
    done
}

wrk_median() {   # wrk_median NAME rate|p99
    local f values=()
    for f in "$OUT/$1".[0-9]*.wrk; do
        [ -f "$f" ] || continue
        if [ "$2" = rate ]; then values+=("$(wrk_rate "$f")"); else values+=("$(wrk_p99_ms "$f")"); fi
    done
    printf '%s\n' "${values[@]}" | median
}

# ---------------------------------------------------------------------------------------------------------------
pinned
section "1. /books keep-alive throughput, one process, default settings (wrk -t$(wrk_threads) -c50)"
declare -A URL
books_rate_project=-; books_rate_bare=-; books_rate_node=-
if ! $HAVE_WRK; then
    skip "figure 1 needs wrk"
else
    peers=(project bare)
    $HAVE_NODE && peers+=(node) || skip "the Node.js peer (no node)"
    for kind in "${peers[@]}"; do
        start_server "$kind" "$OUT/1-$kind.server.log"
        URL[$kind]=$SERVER_URL
    done
    curl -s "${URL[project]}/books" > "$OUT/1-project.books"
    for kind in "${peers[@]}"; do
        curl -s "${URL[$kind]}/books" > "$OUT/1-$kind.books"
        cmp -s "$OUT/1-project.books" "$OUT/1-$kind.books" \
            && echo "$kind: /books answers the project's $(wc -c < "$OUT/1-project.books") bytes" \
            || echo "$kind: /books body DIFFERS from the project's"
    done
    # All servers are up at once and the runs alternate, so a change in the machine's other load hits each alike.
    for kind in "${peers[@]}"; do
        "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${WARM_S}s" "${URL[$kind]}/books" \
            > "$OUT/1-$kind.warmup.wrk" 2>&1 || true
    done
    for i in $(seq "$REPS"); do
        for kind in "${peers[@]}"; do
            "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${DUR_S}s" "${URL[$kind]}/books" \
                > "$OUT/1-$kind.$i.wrk" 2>&1 || true
            printf '%-8s run %d: %10s req/s  %s\n' "$kind" "$i" "$(wrk_rate "$OUT/1-$kind.$i.wrk")" \
                "$(wrk_errors "$OUT/1-$kind.$i.wrk")"
        done
    done
    for kind in "${peers[@]}"; do
        printf -v "books_rate_$kind" '%s' "$(wrk_median "1-$kind" rate)"
    done
    for p in "${PIDS[@]}"; do stop_server "$p"; done
    printf 'median req/s: project %s, bare Helidon %s, Node.js %s\n' "$books_rate_project" "$books_rate_bare" "$books_rate_node"
fi
figure books_rps_project "$books_rate_project"; figure books_rps_bare_helidon "$books_rate_bare"
figure books_rps_node "$books_rate_node"
r=$(calc 'a / b' "$books_rate_project" "$books_rate_node")
row "1 /books req/s vs Node.js" "$books_rate_project" "node" "$books_rate_node" "$r" ">= 1.5" "$(met "$r" '>=' 1.5)"
r=$(calc 'a / b' "$books_rate_project" "$books_rate_bare")
row "1 /books req/s vs bare Helidon" "$books_rate_project" "bare-helidon" "$books_rate_bare" "$r" ">= 0.9" \
    "$(met "$r" '>=' 0.9)"

# ---------------------------------------------------------------------------------------------------------------
section "2. /books beside heavy work: the crypto pool kept saturated by /member/verify-pooled clients"
# await_pool URL CLIENTS: waits (120 s at most) until /runtime reports as many derivations running as the clients
# can keep busy: CLIENTS, or fewer when the server's pool is smaller (a JVM confined to one CPU has one crypto
# thread by default).
await_pool() {
    local deadline=$((SECONDS + 120)) running runtime size want
    while :; do
        runtime=$(curl -s --max-time 2 "$1/runtime")
        running=$(json_num derivationsRunning <<< "$runtime")
        size=$(json_num cryptoThreads <<< "$runtime"); [ -n "$size" ] || size=$(json_num threadpool <<< "$runtime")
        want=$2; [ -n "$size" ] && [ "$size" -lt "$want" ] && want=$size
        [ -n "$running" ] && [ "$running" -ge "$want" ] && return 0
        [ $SECONDS -ge $deadline ] && { echo "pool not saturated after 120 s (running: ${running:-?})"; return 0; }
        sleep 0.05
    done
}

declare -A heavy_rate heavy_p99 heavy_co_p99
# The same stream for every server: one looping client per core of the machine, and wrk -t1 -c10 --latency on
# /books (one wrk thread: pinned, the client has one CPU). Pinned (the target): the servers on CPU 0, the clients on
# CPU 1. Unpinned (as a user first tries it, every process on every core): the same, for the default settings only,
# and without the heavy stream (idle): on two cores, wrk and a server with two carriers are three busy threads,
# while wrk and Node.js's one event loop are two, so the unpinned p99 starts from there.
# The light route is warmed up under the heavy stream, after the first derivations: that also lets the first young
# collections pass, which with the one-CPU JVM's Serial collector copy each new scrypt workspace once into the old
# generation (G1, with two or more CPUs, allocates it there at once).
kinds=(project)
"$JAVA" -jar "$JAR" serve --help 2>&1 | grep -q -- '--scrypt' && kinds+=(project-conscrypt)
$HAVE_NODE && kinds+=(node) || skip "the Node.js peer (no node)"
if [ ${#PIN_SERVER[@]} -gt 0 ]; then
    kinds+=(project-unpinned project-idle-unpinned)
    $HAVE_NODE && kinds+=(node-unpinned node-idle-unpinned)
fi
clients=$CORES
for kind in "${kinds[@]}"; do
    heavy_rate[$kind]=-; heavy_p99[$kind]=-; heavy_co_p99[$kind]=-
    case $kind in
        *-unpinned) unpinned ;;
        *) pinned ;;
    esac
    case $kind in
        project-conscrypt) start_server project "$OUT/2-$kind.server.log" --scrypt conscrypt ;;
        *) start_server "${kind%%-*}" "$OUT/2-$kind.server.log" ;;
    esac
    url=$SERVER_URL; server=$SERVER_PID
    heavy=""
    if [[ $kind != *-idle-* ]]; then
        start_bg "$OUT/2-$kind.heavy.txt" "${CLIENT_CPU[@]}" "$JAVA" -jar "$JAR" load --url "$url" \
            --path /member/verify-pooled --concurrency "$clients" --duration 3600s --timeout 600s
        heavy=$BG_PID
        await_pool "$url" "$clients"
        echo "$kind: crypto pool busy with $clients looping /member/verify-pooled clients" \
             "($(curl -s "$url/runtime" | json_num derivationsRunning) derivations running)"
    fi
    if $HAVE_WRK; then
        # a longer warm-up than figure 1's: the first young collections must pass (see above)
        WARM_S=$((WARM_S * 2)) wrk_runs "2-$kind" "$url/books" -t1 -c10 --latency
        heavy_rate[$kind]=$(wrk_median "2-$kind" rate)
        heavy_p99[$kind]=$(wrk_median "2-$kind" p99)
        echo "$kind: wrk /books ${heavy_rate[$kind]} req/s, p99 ${heavy_p99[$kind]} ms (medians of $REPS)"
    else
        skip "wrk /books throughput and p99 (no wrk)"
    fi
    if [[ $kind != *-unpinned ]]; then
        loan_load --url "$url" --path /books --rate "$RATE" --duration "${DUR_S}s" --warmup-requests "$RATE" \
            --timeout 30s > "$OUT/2-$kind.open-loop.txt" 2>&1 || true
        heavy_co_p99[$kind]=$(load_field "$OUT/2-$kind.open-loop.txt" p99)
        echo "$kind: load --rate $RATE /books p50 $(load_field "$OUT/2-$kind.open-loop.txt" p50) ms," \
             "p99 ${heavy_co_p99[$kind]} ms (coordinated-omission corrected), $(grep '^errors' "$OUT/2-$kind.open-loop.txt" || true)"
    fi
    # derivations are still running: a graceful stop would wait for them
    [ -z "$heavy" ] || stop_server "$heavy" KILL
    stop_server "$server" KILL
done
for kind in project project-conscrypt node project-unpinned node-unpinned project-idle-unpinned node-idle-unpinned; do
    key=${kind//-/_}
    figure "heavy_books_rps_$key" "${heavy_rate[$kind]:--}"; figure "heavy_books_p99_ms_$key" "${heavy_p99[$kind]:--}"
    [[ $kind == *-unpinned ]] || figure "heavy_books_open_loop_p99_ms_$key" "${heavy_co_p99[$kind]:--}"
done
r=$(calc 'a / b' "${heavy_p99[project-idle-unpinned]:--}" "${heavy_p99[node-idle-unpinned]:--}")
row "2 /books p99 ms, idle (unpinned) (info)" "${heavy_p99[project-idle-unpinned]:--}" node \
    "${heavy_p99[node-idle-unpinned]:--}" "$r" "-" "-"
for kind in project project-conscrypt project-unpinned; do
    [ -n "${heavy_rate[$kind]:-}" ] || continue
    label=${kind#project}; label=${label:+ (${label#-})}
    peer=node; [ "$kind" = project-unpinned ] && peer=node-unpinned
    r=$(calc 'a / b' "${heavy_rate[$kind]}" "${heavy_rate[$peer]:--}")
    row "2 /books req/s, pool saturated$label" "${heavy_rate[$kind]}" node "${heavy_rate[$peer]:--}" "$r" ">= 1" \
        "$(met "$r" '>=' 1)"
    r=$(calc 'a / b' "${heavy_p99[$kind]}" "${heavy_p99[$peer]:--}")
    row "2 /books p99 ms (wrk)$label" "${heavy_p99[$kind]}" node "${heavy_p99[$peer]:--}" "$r" "<= 1" \
        "$(met "$r" '<=' 1)"
    [ "$kind" = project-unpinned ] && continue
    r=$(calc 'a / b' "${heavy_co_p99[$kind]}" "${heavy_co_p99[$peer]:--}")
    row "2 /books p99 ms (load --rate $RATE)$label" "${heavy_co_p99[$kind]}" node "${heavy_co_p99[$peer]:--}" "$r" \
        "<= 1" "$(met "$r" '<=' 1)"
done
unpinned

# ---------------------------------------------------------------------------------------------------------------
section "3. scrypt cost (N=65536 r=8 p=8) through HTTP: one derivation, and derivations/s with $CORES pool threads"
# One warm-up request, then SCRYPT_SINGLE sequential requests (median time); then $CORES clients with
# SCRYPT_PER_CLIENT requests each (curl loops): derivations/s. The target is the pool's scaling:
# rate >= 0.9 x cores x (1 / single time).
# curl_rate URL CLIENTS PER_CLIENT FILE: derivations/s of CLIENTS curl loops of PER_CLIENT requests each, from the
# first request to the last answer; every status code goes to FILE, and any other than 200 makes the rate "-".
# curl rather than `load`: a client JVM compiling its own code would take CPU from the derivations on few cores.
curl_rate() {
    local url=$1 clients=$2 per=$3 file=$4 t0 t1 pids=() i
    : > "$file"
    t0=$(date +%s%N)
    for i in $(seq "$clients"); do
        (for _ in $(seq "$per"); do curl -s -o /dev/null --max-time 600 -w '%{http_code}\n' "$url"; done >> "$file") &
        pids+=($!)
    done
    wait "${pids[@]}"
    t1=$(date +%s%N)
    if [ "$(grep -c '^200$' "$file")" -ne $((clients * per)) ]; then echo -; return; fi
    calc 'a * 1e9 / b' $((clients * per)) $((t1 - t0))
}

scrypt_variants=(project)
if "$JAVA" -jar "$JAR" serve --help 2>&1 | grep -q -- '--scrypt'; then
    scrypt_variants=()
    for provider in reuse bouncycastle conscrypt; do
        "$JAVA" -jar "$JAR" serve --help 2>&1 | grep -qi "$provider" && scrypt_variants+=("project:$provider")
    done
fi
$HAVE_NODE && scrypt_variants+=(node) || skip "Node.js crypto.scrypt (no node)"
declare -A scrypt_single scrypt_rate
for variant in "${scrypt_variants[@]}"; do
    kind=${variant%%:*}
    name=${variant//:/-}
    if [ "$kind" = node ]; then
        start_server node "$OUT/3-$name.server.log" "UV_THREADPOOL_SIZE=$CORES"
    elif [ "$variant" = project ]; then
        start_server project "$OUT/3-$name.server.log" --crypto-threads "$CORES"
    else
        start_server project "$OUT/3-$name.server.log" --crypto-threads "$CORES" --scrypt "${variant#*:}"
    fi
    url=$SERVER_URL
    label="$name ($(curl -s "$url/runtime" | sed -n 's/.*"hasher":"\([^"]*\)".*/\1/p'))"
    [ "$kind" = node ] && label="node crypto.scrypt"
    [ "$MODE" = smoke ] || curl -s -o /dev/null --max-time 300 "$url/member/verify-pooled"   # warm-up (JIT)
    times=()
    for i in $(seq "$SCRYPT_SINGLE"); do
        times+=("$(curl -s -o /dev/null --max-time 300 -w '%{time_total}' "$url/member/verify-pooled" | awk '{ printf "%.1f", $1 * 1000 }')")
    done
    scrypt_single[$variant]=$(printf '%s\n' "${times[@]}" | median)
    scrypt_rate[$variant]=$(curl_rate "$url/member/verify-pooled" "$CORES" "$SCRYPT_PER_CLIENT" "$OUT/3-$name.rate.txt")
    ideal=$(calc "$CORES * 1000 / a" "${scrypt_single[$variant]}")
    ratio=$(calc 'a / b' "${scrypt_rate[$variant]}" "$ideal")
    printf '%-28s one derivation %8s ms (runs: %s)   %s clients: %s derivations/s (ideal %s, ratio %s)\n' \
        "$label" "${scrypt_single[$variant]}" "${times[*]}" "$CORES" "${scrypt_rate[$variant]}" "$ideal" "$ratio"
    figure "scrypt_single_ms_$name" "${scrypt_single[$variant]}"; figure "scrypt_rate_per_s_$name" "${scrypt_rate[$variant]}"
    target="3 scrypt/s, pool=$CORES, $name"
    row "$target" "${scrypt_rate[$variant]}" "ideal $CORES x 1/single" "$ideal" "$ratio" ">= 0.9" "$(met "$ratio" '>=' 0.9)"
    stop_server "$SERVER_PID"
done
project_single=${scrypt_single[project]:-${scrypt_single[project:reuse]:--}}
r=$(calc 'a / b' "$project_single" "${scrypt_single[node]:--}")
row "3 one derivation ms (info)" "$project_single" node "${scrypt_single[node]:--}" "$r" "-" "-"

# The default provider's cost beside Node's, without HTTP: the CPU of one derivation (median of SCRYPT_SINGLE + 2,
# after a warm-up; derive's deriving thread, Node's process.cpuUsage around scryptSync), the bytes the deriving
# thread allocates; then the young collections that 4 pooled derivations cause on an idle default server, and on
# one with bouncycastle for comparison (-Xlog:gc, a logging flag only).
cpu_runs=$((SCRYPT_SINGLE + 2))
"$JAVA" -jar "$JAR" derive --threads "$CORES" --single "$cpu_runs" --count "$CORES" --json "$OUT/3-derive.json" > "$OUT/3-derive.txt" 2>&1 || true
sed 's/^/  /' "$OUT/3-derive.txt"
derive_field() { sed -n "s/.*\"$1\" : \([0-9.Ee+-]*\).*/\1/p" "$OUT/3-derive.json" | head -1; }
reuse_cpu=$(derive_field singleCpuMedianMs); num "$reuse_cpu" && reuse_cpu=$(printf '%.1f' "$reuse_cpu") || reuse_cpu=-
reuse_bytes=$(derive_field singleAllocatedBytes); num "$reuse_bytes" && reuse_bytes=$(printf '%.0f' "$reuse_bytes") || reuse_bytes=-
node_cpu=-
if $HAVE_NODE; then
    node_cpu=$(node -e '
        const { scryptSync } = require("node:crypto");
        const cost = { N: 65536, r: 8, p: 8, maxmem: 256 * 1024 * 1024 };
        scryptSync("password", "salt", 32, cost);
        const ms = [];
        for (let i = 0; i < Number(process.argv[1]); i++) {
            const before = process.cpuUsage();
            scryptSync("password", "salt", 32, cost);
            const used = process.cpuUsage(before);
            ms.push((used.user + used.system) / 1000);
        }
        ms.sort((a, b) => a - b);
        console.log(ms[ms.length >> 1].toFixed(1));' "$cpu_runs" 2>/dev/null || echo -)
fi
echo "one derivation's CPU (median of $cpu_runs): project reuse $reuse_cpu ms, node $node_cpu ms;" \
     "allocated by the deriving thread: $reuse_bytes bytes"
figure scrypt_cpu_ms_project_reuse "$reuse_cpu"; figure scrypt_cpu_ms_node "$node_cpu"
figure scrypt_allocated_bytes_project_reuse "$reuse_bytes"
r=$(calc 'a / b' "$reuse_cpu" "$node_cpu")
row "3 one derivation's CPU ms, default provider" "$reuse_cpu" node "$node_cpu" "$r" "<= 1.05" "$(met "$r" '<=' 1.05)"
row "3 bytes allocated per derivation" "$reuse_bytes" "limit" 65536 "$(calc 'a / b' "$reuse_bytes" 65536)" \
    "< 64 KiB" "$(met "$reuse_bytes" '<' 65536)"

declare -A idle_young
for provider in reuse bouncycastle; do
    JVM_FLAGS+=("-Xlog:gc:file=$OUT/3-idle-$provider.gc")
    start_server project "$OUT/3-idle-$provider.server.log" --scrypt "$provider"
    JVM_FLAGS=("${JVM_FLAGS[@]:0:${#JVM_FLAGS[@]}-1}")
    curl -s -o /dev/null "$SERVER_URL/books"
    sleep 2   # past the collections of start-up
    young_before=$(grep -c 'Pause Young' "$OUT/3-idle-$provider.gc" || true)
    loan_load --url "$SERVER_URL" --path /member/verify-pooled --concurrency 4 --requests 4 --timeout 600s \
        > "$OUT/3-idle-$provider.load.txt" 2>&1 || true
    young_after=$(grep -c 'Pause Young' "$OUT/3-idle-$provider.gc" || true)
    idle_young[$provider]=$((young_after - young_before))
    echo "idle server ($(grep -o 'scrypt=.*' "$OUT/3-idle-$provider.server.log")): 4 pooled derivations" \
         "($(grep '^errors' "$OUT/3-idle-$provider.load.txt" || echo 'errors ?')), ${idle_young[$provider]} young" \
         "collections; workspaces: $(curl -s "$SERVER_URL/runtime" | grep -o '"scryptWorkspace[^,]*' | tr '\n' ' ')"
    stop_server "$SERVER_PID"
    figure "idle_young_collections_4_derivations_$provider" "${idle_young[$provider]}"
done
row "3 young GCs, 4 pooled derivations, idle" "${idle_young[reuse]}" "limit" 2 \
    "$(calc 'a / b' "${idle_young[reuse]}" 2)" "<= 2" "$(met "${idle_young[reuse]}" '<=' 2)"
row "3 the same with bouncycastle (info)" "${idle_young[bouncycastle]}" "limit" 2 \
    "$(calc 'a / b' "${idle_young[bouncycastle]}" 2)" "-" "-"

# ---------------------------------------------------------------------------------------------------------------
section "4. worker start (process start -> first answer) and replacement (kill -9 -> a new pid answering)"
declare -A start_ms replace_ms
kinds=(project)
# The AOT cache the build makes on JDK 25 (cluster workers use it when it matches the jar): measured as its own kind.
AOT_CACHE=${JAR%.jar}.aot
[ -f "$AOT_CACHE" ] && [ "$AOT_CACHE" -nt "$JAR" ] && kinds+=(project-aot) || skip "start with the AOT cache (no $AOT_CACHE newer than the jar)"
$HAVE_NODE && kinds+=(node) || skip "the Node.js peer (no node)"
for kind in "${kinds[@]}"; do
    runs=()
    for i in $(seq "$REPS"); do
        port=$(free_port)
        case "$kind" in
            project) cmd=("$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" serve --port "$port") ;;
            project-aot) cmd=("$JAVA" "${JVM_FLAGS[@]}" "-XX:AOTCache=$AOT_CACHE" -Xlog:aot*=error -jar "$JAR" serve --port "$port") ;;
            node) cmd=(node experiments/peers/loan-peer.js --port "$port") ;;
        esac
        START_LOG="$OUT/4-$kind-start.$i.log" first_answer_ms "http://127.0.0.1:$port/runtime" "${cmd[@]}" \
            > "$OUT/4-$kind-start.$i.ms" || echo - > "$OUT/4-$kind-start.$i.ms"
        runs+=("$(cat "$OUT/4-$kind-start.$i.ms")")
    done
    start_ms[$kind]=$(printf '%s\n' "${runs[@]}" | median)
    echo "$kind: start -> first answer ${start_ms[$kind]} ms (runs: ${runs[*]})"
done

# Clusters of 2 workers (the project's with its default warm spare). Only a pid that answers on the port is a
# victim (a standing-by spare does not answer); the project's cluster is given time for its spare to stand by
# before each kill, its steady state.
for kind in project node; do
    [ "$kind" = node ] && ! $HAVE_NODE && continue
    port=$(free_port)
    log="$OUT/4-$kind-cluster.log"
    if [ "$kind" = project ]; then
        start_bg "$log" "$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" cluster --port "$port" --workers 2
        await_line "$log" '^cluster ready' "$BG_PID"
    else
        start_bg "$log" node experiments/peers/loan-peer.js --port "$port" --cluster 2
        await_line "$log" 'serving pid' "$BG_PID" 2
    fi
    primary=$BG_PID
    runs=()
    for i in $(seq "$REPS"); do
        if [ "$kind" = project ]; then
            deadline=$((SECONDS + 180))
            until [ "$(grep -c "standing by" "$log")" -ge "$i" ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
        fi
        WORKER_PIDS+=($(pgrep -P "$primary"))
        victim=$(curl -s --max-time 5 "http://127.0.0.1:$port/runtime" | json_pid || true)
        [ -n "$victim" ] || { echo "$kind: no worker answered"; break; }
        runs+=("$(replacement_ms "http://127.0.0.1:$port/runtime" "$victim" || echo -)")
        WORKER_PIDS+=($(pgrep -P "$primary"))
    done
    replace_ms[$kind]=$(printf '%s\n' "${runs[@]}" | median)
    echo "$kind cluster: kill -9 of a worker -> new pid answering ${replace_ms[$kind]} ms (runs: ${runs[*]})"
    stop_server "$primary"
done
for kind in project node; do
    figure "start_first_answer_ms_$kind" "${start_ms[$kind]:--}"; figure "replacement_ms_$kind" "${replace_ms[$kind]:--}"
done
figure "start_first_answer_ms_project_aot" "${start_ms[project-aot]:--}"
r=$(calc 'a / b' "${start_ms[project]}" "${start_ms[node]:--}")
row "4 start -> first answer ms (info)" "${start_ms[project]}" node "${start_ms[node]:--}" "$r" "-" "-"
r=$(calc 'a / b' "${start_ms[project-aot]:--}" "${start_ms[node]:--}")
row "4 start, AOT cache, ms (info)" "${start_ms[project-aot]:--}" node "${start_ms[node]:--}" "$r" "-" "-"
r=$(calc 'a / b' "${replace_ms[project]}" "${replace_ms[node]:--}")
row "4 kill -9 -> replacement answers ms" "${replace_ms[project]}" node "${replace_ms[node]:--}" "$r" "<= 250 ms" \
    "$(met "${replace_ms[project]}" '<=' 250)"

# ---------------------------------------------------------------------------------------------------------------
section "5. waiting work: C concurrent GET /catalog/lookup?ms=$WAIT_MS (wrk -t2 -cC, keep-alive)"
# Little's law: C requests that each take 0.1 s allow at most C / 0.1 s req/s. Memory per in-flight request: the
# server's peak resident memory during the run (/proc/PID/status, every 100 ms) minus its resident memory idle
# (after a warm-up), divided by C. --threads platform gets C platform threads, one per request, so both models
# hold every wait at once and differ in what a waiting request costs.
declare -A wait_frac wait_rss wait_rate
wait_kinds=(virtual platform bare)
$HAVE_NODE && wait_kinds+=(node) || skip "the Node.js peer (no node)"
if ! $HAVE_WRK; then
    skip "figure 5 needs wrk"
    wait_kinds=()
fi
printf '%-9s %7s %10s %10s %9s %9s %9s %12s  %s\n' server C req/s bound fraction idle-MiB peak-MiB KiB/request errors
for c in "${WAIT_LEVELS[@]}"; do
    bound=$(calc 'a / b' "$c" "$(calc 'a / 1000' "$WAIT_MS")")
    for kind in "${wait_kinds[@]}"; do
        case $kind in
            virtual)  start_server project "$OUT/5-$kind-$c.server.log" ;;
            platform) start_server project "$OUT/5-$kind-$c.server.log" --threads platform --platform-threads "$c" ;;
            *)        start_server "$kind" "$OUT/5-$kind-$c.server.log" ;;
        esac
        url="$SERVER_URL/catalog/lookup?ms=$WAIT_MS"
        wrk -t2 -c50 -d"${WARM_S}s" "$url" > "$OUT/5-$kind-$c.warmup.wrk" 2>&1 || true
        idle=$(rss_kib "$SERVER_PID")
        rates=()
        peak_file="$OUT/5-$kind-$c.rss"
        echo "$idle" > "$peak_file"
        (while kill -0 "$SERVER_PID" 2>/dev/null; do rss_kib "$SERVER_PID"; sleep 0.1; done >> "$peak_file") &
        sampler=$!
        PIDS+=("$sampler")
        # 10,000 connections take seconds to open and to get their first answers on a busy machine: a longer run
        duration=$WAIT_S; [ "$c" -ge 10000 ] && duration=$((WAIT_S * 3))
        for i in $(seq "$REPS"); do
            wrk -t2 -c"$c" -d"${duration}s" --timeout 10s "$url" > "$OUT/5-$kind-$c.$i.wrk" 2>&1 || true
            rates+=("$(wrk_rate "$OUT/5-$kind-$c.$i.wrk")")
        done
        stop_server "$sampler"
        peak=$(sort -g "$peak_file" | tail -1)
        wait_rate[$kind-$c]=$(printf '%s\n' "${rates[@]}" | median)
        wait_frac[$kind-$c]=$(calc 'a / b' "${wait_rate[$kind-$c]}" "$bound")
        wait_rss[$kind-$c]=$(calc '(a - b) / c' "$peak" "$idle" "$c")
        printf '%-9s %7s %10s %10s %9s %9s %9s %12s  %s\n' "$kind" "$c" "${wait_rate[$kind-$c]}" "$bound" \
            "${wait_frac[$kind-$c]}" "$(calc 'a / 1024' "$idle")" "$(calc 'a / 1024' "$peak")" "${wait_rss[$kind-$c]}" \
            "$(wrk_errors "$OUT/5-$kind-$c.$REPS.wrk")"
        figure "wait_${c}_rps_$kind" "${wait_rate[$kind-$c]}"; figure "wait_${c}_kib_per_request_$kind" "${wait_rss[$kind-$c]}"
        stop_server "$SERVER_PID"
    done
done
for c in "${WAIT_LEVELS[@]}"; do
    goal=0.8; [ "$c" -ge 10000 ] && goal=0.4
    bound=$(calc 'a / b' "$c" "$(calc 'a / 1000' "$WAIT_MS")")
    for kind in virtual platform; do
        row "5 $c waits, $kind, req/s / bound" "${wait_rate[$kind-$c]:--}" "Little's law" "$bound" \
            "${wait_frac[$kind-$c]:--}" ">= $goal" "$(met "${wait_frac[$kind-$c]:--}" '>=' "$goal")"
    done
    for kind in bare node; do
        row "5 $c waits, $kind peer (info)" "${wait_rate[virtual-$c]:--}" "$kind" "${wait_rate[$kind-$c]:--}" \
            "$(calc 'a / b' "${wait_rate[virtual-$c]:--}" "${wait_rate[$kind-$c]:--}")" "-" "-"
    done
    row "5 $c waits, KiB/request virtual vs platform" "${wait_rss[virtual-$c]:--}" platform \
        "${wait_rss[platform-$c]:--}" "$(calc 'a / b' "${wait_rss[virtual-$c]:--}" "${wait_rss[platform-$c]:--}")" "-" "-"
done

# ---------------------------------------------------------------------------------------------------------------
section "summary ($MODE; $(date -u +%Y-%m-%d), nproc $CORES, $("$JAVA" -version 2>&1 | head -1 | cut -d'"' -f2), node $($HAVE_NODE && node --version || echo -))"
printf '%-44s %10s %-24s %10s %7s %-10s %s\n' target project peer "peer-fig" ratio goal met
for line in "${ROWS[@]}"; do
    IFS='|' read -r t p pl pv ra g m <<< "$line"
    printf '%-44s %10s %-24s %10s %7s %-10s %s\n' "$t" "$p" "$pl" "$pv" "$ra" "$g" "$m"
done

json_value() { if num "$1"; then printf '%s' "$1"; elif [ "$1" = - ]; then printf null; else printf '"%s"' "$1"; fi; }
{
    printf '{\n  "mode": "%s",\n  "date": "%s",\n  "nproc": %s,\n' "$MODE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$CORES"
    printf '  "java": "%s",\n  "node": "%s",\n  "wrk": "%s",\n' "$("$JAVA" -version 2>&1 | head -1 | tr -d '"')" \
        "$($HAVE_NODE && node --version || echo missing)" "$WRK_VERSION"
    printf '  "jvmFlags": "%s",\n  "repetitions": %s,\n  "figures": {' "${JVM_FLAGS[*]:-}" "$REPS"
    sep=""
    for f in "${FIGURES[@]}"; do printf '%s\n    "%s": %s' "$sep" "${f%%=*}" "$(json_value "${f#*=}")"; sep=","; done
    printf '\n  },\n  "targets": ['
    sep=""
    for line in "${ROWS[@]}"; do
        IFS='|' read -r t p pl pv ra g m <<< "$line"
        printf '%s\n    {"target": "%s", "project": %s, "peer": "%s", "peerFigure": %s, "ratio": %s, "goal": "%s", "met": "%s"}' \
            "$sep" "$t" "$(json_value "$p")" "$pl" "$(json_value "$pv")" "$(json_value "$ra")" "$g" "$m"
        sep=","
    done
    printf '\n  ]\n}\n'
} > "$OUT/bench.json"
echo
echo "json: $OUT/bench.json"
