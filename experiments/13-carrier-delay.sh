#!/usr/bin/env bash
# How late is ready work: the lesson's workload, heavy requests looping (closed loop, one or more clients) and light
# /books requests beside at a fixed rate (open loop: each one's latency counts from when it was due), in each execution
# model and in the two event-loop peers, each reporting its own delay from /runtime in one shape (carrierDelay: a
# probe sleeps 10 ms and records how late it woke, the samples a stall swallowed filled in). The cases:
#   virtual threads on one carrier, inline (verify-blocking) and pooled (verify-pooled); the default carriers (one
#   per CPU) with CPUs + 1 inline heavy loops; platform threads inline; the Node.js peer with scryptSync and scrypt;
#   the Netty peer on one event loop inline and pooled, and on one loop per CPU with CPUs + 1 inline heavy loops.
# Servers on CPU 0 and the clients on CPU 1, but for the cases of one carrier or loop per CPU, which need every CPU
# and run unpinned. Each case starts its server afresh, warms it (light requests, then heavy ones as many at once as
# it has loops, then a full collection: a JVM's first derivations make their 64 MiB workspaces, and a collection
# that copies one is a pause, which the probe sees as any stop-the-world pause), starts the heavy loops, then
# measures the light requests for RUN_S seconds, reads /runtime (the delay's last 10 s; when the probe did not wake
# once in them, how late it is now, a lower bound) and stops the heavy loops (SIGTERM: they report what they measured
# up to then). Verdicts: one
# carrier inline and both event loops inline show a delay p99 of at least half a derivation; every pooled variant at
# most 20 ms; platform threads at most 50 ms. And which ready virtual thread one carrier runs first
# (experiments/YieldOrder.java, no server): a spinner that yields between its 100 ms spins keeps a sleeping probe
# waiting for all of its spins; one that sleeps 1 ms between them, for about one.
# Settings (environment): ROUNDS (3, --short 1), RUN_S (10), LIGHT_RATE (50 a second).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq curl taskset
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
RUN_S=${RUN_S:-10}
LIGHT_RATE=${LIGHT_RATE:-50}
WARM_S=3
HEAVY_BOUND_S=600  # the heavy loops' own end, should nothing stop them first
LIGHT_WARMUP=5     # the light client's warm-up requests: each may wait behind the held work (a second on one loop)
CPUS=$(nproc)
[ "$CPUS" -ge 2 ] || { echo "13-carrier-delay.sh needs 2 CPUs (servers on CPU 0, clients on CPU 1)" >&2; exit 1; }
HAVE_NODE=false; command -v node > /dev/null && HAVE_NODE=true
begin_experiment 13-carrier-delay "How late does ready work get to run while heavy work runs, in each execution model and beside Node's and Netty's event loops?"
echo "rounds:  $ROUNDS per case; heavy loops from ${WARM_S}s before the light run; light: /books at ${LIGHT_RATE}/s for ${RUN_S}s, open loop"
echo "delay:   /runtime carrierDelay.last10s after the light run (each server's own probe, resolution 10 ms)"
for s in rounds:"$ROUNDS" run-seconds:"$RUN_S" light-rate:"$LIGHT_RATE" warm-seconds:"$WARM_S" \
  light-warmup:"$LIGHT_WARMUP" cpus:"$CPUS"; do
  setting "${s%%:*}" "${s#*:}"
done
$HAVE_NODE || echo "node:    missing: the Node.js cases are skipped"
echo

# The cases: KEY|SERVER (serve, node or netty)|SERVER OPTIONS|HEAVY PATH|HEAVY LOOPS|CPU (0: server on CPU 0 and the
# clients on CPU 1; all: unpinned)|TITLE
CASES=("vt-1-carrier-inline|serve|--carriers 1|/member/verify-blocking|1|0|virtual threads, 1 carrier, inline"
  "vt-1-carrier-pooled|serve|--carriers 1|/member/verify-pooled|1|0|virtual threads, 1 carrier, pooled"
  "vt-default-inline|serve||/member/verify-blocking|$((CPUS + 1))|all|virtual threads, $CPUS carriers, $((CPUS + 1)) inline loops"
  "platform-inline|serve|--threads platform|/member/verify-blocking|2|0|platform threads, 1 CPU, 2 inline loops")
if $HAVE_NODE; then
  CASES+=("node-sync|node||/member/verify-blocking|1|0|Node.js, scryptSync"
    "node-pooled|node||/member/verify-pooled|1|0|Node.js, scrypt (libuv pool)")
fi
CASES+=("netty-1-loop-inline|netty|--loops 1|/member/verify-blocking|1|0|Netty, 1 loop, inline"
  "netty-1-loop-pooled|netty|--loops 1|/member/verify-pooled|1|0|Netty, 1 loop, pooled"
  "netty-loops-inline|netty|--loops $CPUS|/member/verify-blocking|$((CPUS + 1))|all|Netty, $CPUS loops, $((CPUS + 1)) inline loops")

# run_case KEY SERVER OPTIONS HEAVY LOOPS CPU ROUND: one fresh server, its heavy loops and the light run; the figures.
run_case() {
  local key=$1 kind=$2 options=$3 heavy=$4 loops=$5 cpu=$6 round=$7 base="$OUT/$1-$7" server_cpu=() client=()
  if [ "$cpu" = 0 ]; then server_cpu=(--cpu 0); client=(taskset -c 1); fi
  # shellcheck disable=SC2086 # the options are words
  case $kind in
    serve) start_server "$base.server.log" "${server_cpu[@]}" $options ;;
    *) start_peer "$kind" "$base.server.log" "${server_cpu[@]}" $options ;;
  esac
  curl_requests 20 "$SERVER_URL/books" > /dev/null
  curl -s --max-time 10 "$SERVER_URL/runtime" > /dev/null
  # as many heavy requests at once as the loops will send: each concurrent derivation makes its 64 MiB workspace now;
  # then a full collection moves them to the old generation (a young collection copying one in the measured window
  # would show as delay, as any stop-the-world pause does)
  "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "$heavy" --concurrency "$loops" \
    --requests $((2 * loops)) --timeout 120s > "$base.warm.txt" || true
  [ "$kind" = node ] || "$JAVA_HOME/bin/jcmd" "$SERVER_PID" GC.run > /dev/null
  # The heavy loops must outlast the light run, whose start and tail (a JVM, warm-up requests and answers that wait
  # behind the heavy work) vary: they run until the light run and the /runtime read are done, then SIGTERM stops them
  # (load then sends nothing new and reports once the requests in flight are answered). A check below that they did.
  start_bg "$base.heavy.txt" "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path "$heavy" \
    --concurrency "$loops" --duration "${HEAVY_BOUND_S}s" --timeout 120s --json "$base.heavy.json"
  local heavy_pid=$BG_PID
  sleep "$WARM_S"
  "${client[@]}" "$JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /books --rate "$LIGHT_RATE" \
    --warmup-requests "$LIGHT_WARMUP" --duration "${RUN_S}s" --timeout 60s --json "$base.light.json" > "$base.light.txt" || true
  # a server whose every loop is held may not answer at all: that round is not measured, and the experiment goes on
  curl -s --max-time 60 "$SERVER_URL/runtime" > "$base.runtime.json" \
    || echo "  round $round $key: /runtime did not answer within 60 s: not measured"
  local covered=true
  is_running "$heavy_pid" || covered=false
  stop_pid "$heavy_pid" TERM 150
  stop_server "$SERVER_PID"
  if ! $covered; then
    # the light run (or the window /runtime reports) outlasted the heavy loops: it measured an idle server
    echo "  round $round $key: the heavy loops ended before the light run and the /runtime read did: not measured"
    rm -f "$base.runtime.json" "$base.light.json"
  fi
  local d=.carrierDelay.last10s p99 max now starved=""
  p99=$(json_get "$base.runtime.json" "$d.p99Ms")
  max=$(json_get "$base.runtime.json" "$d.maxMs")
  now=$(json_get "$base.runtime.json" .carrierDelay.lateNowMs)
  if [ "$(json_get "$base.runtime.json" "$d.count")" = 0 ] && num "$now" && holds "$now" '>' 0; then
    # The probe did not wake once in the window (one carrier's own queue of new work runs before a timer's wake-up):
    # its samples come only when it wakes. How late it is now is the delay's lower bound, its p99 and max alike.
    p99=$now
    max=$now
    starved=" (no sample in 10 s: the probe is $now ms late, a lower bound)"
  fi
  figure "delay.p50.$key" "$(json_get "$base.runtime.json" "$d.p50Ms")" ms "delay p50 over the last 10 s: $key"
  figure "delay.p99.$key" "$p99" ms "delay p99 over the last 10 s (or how late the probe is now): $key"
  figure "delay.max.$key" "$max" ms "largest delay over the last 10 s (or how late the probe is now): $key"
  figure "light.p99.$key" "$(fixed 1 "$(json_get "$base.light.json" .latencyMs.p99)")" ms "light /books p99: $key"
  figure "heavy.p50.$key" "$(fixed 0 "$(json_get "$base.heavy.json" .latencyMs.p50)")" ms "heavy request p50: $key"
  figure "delay-over-heavy.$key" "$(calc 'a / b' "$(figure_values "delay.p99.$key" | tail -1)" \
    "$(figure_values "heavy.p50.$key" | tail -1)")" "" "delay p99 / heavy p50: $key"
  if [ "$kind" = node ]; then
    figure "node-native.p99.$key" "$(json_get "$base.runtime.json" .eventLoopDelay.p99Ms)" ms \
      "Node's monitorEventLoopDelay p99 (one sample per timer, since the start): $key"
  fi
  printf '  round %d %-22s delay p50 %9s  p99 %9s  max %9s ms   light p99 %8s ms   heavy p50 %6s ms%s\n' "$round" \
    "$key" "$(figure_values "delay.p50.$key" | tail -1)" "$(figure_values "delay.p99.$key" | tail -1)" \
    "$(figure_values "delay.max.$key" | tail -1)" "$(figure_values "light.p99.$key" | tail -1)" \
    "$(figure_values "heavy.p50.$key" | tail -1)" "$starved"
}

for round in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    IFS='|' read -r key kind options heavy loops cpu _ <<< "$c"
    run_case "$key" "$kind" "$options" "$heavy" "$loops" "$cpu" "$round"
  done
done

echo "--- which ready virtual thread one carrier runs first (experiments/YieldOrder.java: 40 spins of 100 ms) ---"
"$JAVA_HOME/bin/javac" -d "$OUT/classes" experiments/YieldOrder.java
for round in $(seq 1 "$ROUNDS"); do
  for how in yield sleep; do
    line=$(taskset -c 0 "$JAVA" -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1 \
      -cp "$OUT/classes" YieldOrder "$how" 100 40)
    echo "  round $round: $line"
    figure "order.probe-longest.$how" "$(sed -n 's/.*probe-longest-ms=\([0-9.]*\).*/\1/p' <<< "$line")" ms \
      "the probe's longest wait beside a spinner that ${how}s between spins"
  done
done

echo
table delay "medians over $ROUNDS rounds (ms; delay: the server's own probe over the last 10 s; light: /books at \
${LIGHT_RATE}/s for ${RUN_S}s beside the heavy loops; heavy: one heavy request; Node's own: monitorEventLoopDelay, one \
sample per timer)" case model "delay p50" "delay p99" "delay max" "light p99" "heavy p50" "Node's own p99"
bars='{"categories": [], "series": [{"label": "delay p99 (ms)", "values": []}, {"label": "light p99 (ms)", "values": []}]}'
for c in "${CASES[@]}"; do
  IFS='|' read -r key _ _ _ _ _ title <<< "$c"
  table_row "$key" "$title" "$(figure_median "delay.p50.$key")" "$(figure_median "delay.p99.$key")" \
    "$(figure_median "delay.max.$key")" "$(figure_median "light.p99.$key")" "$(figure_median "heavy.p50.$key")" \
    "$(figure_median "node-native.p99.$key")"
  bars=$(jq -c --arg k "$key" --arg d "$(figure_median "delay.p99.$key")" --arg l "$(figure_median "light.p99.$key")" \
    'def bar: (tonumber? // null) | if . == null or . > 0 then . else 0.001 end;   # a log axis has no 0; missing: no bar
     .categories += [$k] | .series[0].values += [$d | bar] | .series[1].values += [$l | bar]' <<< "$bars")
done
table_end
echo "$bars" > "$OUT/delay.bars.json"
loan_runtime chart bars --log --title "How late ready work ran beside heavy work (medians of $ROUNDS rounds)" \
  --y-label "ms (log scale)" --out "$OUT/delay.png" "$OUT/delay.bars.json"

verdict_on "one carrier, inline: the probe waits at least half a derivation (p99)" \
  'delay-over-heavy.vt-1-carrier-inline' '>=' 0.5
verdict_on "Node.js with scryptSync: the event loop waits at least half a derivation (p99)" \
  'delay-over-heavy.node-sync' '>=' 0.5
verdict_on "Netty on one loop, inline: the same" 'delay-over-heavy.netty-1-loop-inline' '>=' 0.5
verdict_on "every pooled variant: delay p99 at most 20 ms" 'delay.p99.*-pooled' '<=' 20
verdict_on "platform threads inline on one CPU: delay p99 at most 50 ms" 'delay.p99.platform-inline' '<=' 50
verdict_on "a spinner that yields keeps the probe waiting for at least 10 of its 40 spins" 'order.probe-longest.yield' \
  '>=' 1000
verdict_on "a spinner that sleeps between spins keeps it waiting for at most 2" 'order.probe-longest.sleep' '<=' 200
end_experiment
