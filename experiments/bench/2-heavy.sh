# shellcheck shell=bash
# Figure 2 of experiments/bench.sh (sourced by it): /books beside heavy work. One looping /member/verify-pooled
# client per core keeps the crypto pool saturated while wrk -t1 -c10 --latency measures /books (and, pinned only,
# an open-loop `load --rate`, whose p99 is corrected for coordinated omission).
# Pinned (the targets): the servers on CPU 0, the clients on CPU 1. Unpinned (as a user first tries it, every process
# on every core): the same for the default settings, and without the heavy stream (idle): on two cores, wrk and a
# server with two carriers are three busy threads, while wrk and Node.js's one event loop are two, so the unpinned
# p99 starts from there.
# The light route is warmed up under the heavy stream, after the first derivations: that also lets the first young
# collections pass, which with the one-CPU JVM's Serial collector copy each new scrypt workspace once into the old
# generation (G1, with two or more CPUs, allocates it there at once).
# --short leaves out conscrypt and the unpinned runs.
# Figures heavy.* (one round per repetition, for wrk and the open loop alike); targets "2 /books req/s, pool
# saturated" (>= 1 x Node.js), "2 /books p99 ms" (<= 1 x).

section "2. /books beside heavy work: the crypto pool kept saturated by /member/verify-pooled clients"

# await_pool URL CLIENTS: waits (120 s at most) until /runtime reports as many derivations running as the clients can
# keep busy: CLIENTS, or fewer when the server's pool is smaller (a JVM confined to one CPU has one crypto thread by
# default). The project calls its pool size cryptoThreads, the Node.js peer threadpool (libuv's).
await_pool() {
  local deadline=$((SECONDS + 120)) running runtime size want
  while :; do
    runtime=$(curl -s --max-time 2 "$1/runtime")
    running=$(json_num derivationsRunning <<< "$runtime")
    size=$(json_num cryptoThreads <<< "$runtime"); [ -n "$size" ] || size=$(json_num threadpool <<< "$runtime")
    want=$2
    if [ -n "$size" ] && [ "$size" -lt "$want" ]; then want=$size; fi
    if [ -n "$running" ] && [ "$running" -ge "$want" ]; then return 0; fi
    if [ $SECONDS -ge $deadline ]; then echo "pool not saturated after 120 s (running: ${running:-?})"; return 0; fi
    sleep 0.05
  done
}

# wrk_runs NAME URL [WRK_OPTION...]: a warm-up, then REPS timed runs, on CLIENT_CPU; files $OUT/NAME.N.wrk.
wrk_runs() {
  local name=$1 url=$2 i
  shift 2
  "${CLIENT_CPU[@]}" wrk -d"${WARM_S}s" "$@" "$url" > "$OUT/$name.warmup.wrk" 2>&1 || true
  for i in $(seq "$REPS"); do
    "${CLIENT_CPU[@]}" wrk -d"${DUR_S}s" "$@" "$url" > "$OUT/$name.$i.wrk" 2>&1 || true
  done
}

heavy_kinds=(project)
if $EVERY_VARIANT; then heavy_kinds+=(project-conscrypt); fi
if $HAVE_NODE; then heavy_kinds+=(node); else skip "the Node.js peer (no node)"; fi
if $CAN_PIN && $EVERY_VARIANT; then
  heavy_kinds+=(project-unpinned project-idle-unpinned)
  if $HAVE_NODE; then heavy_kinds+=(node-unpinned node-idle-unpinned); fi
fi
for kind in "${heavy_kinds[@]}"; do
  if [[ $kind == *-unpinned ]]; then unpinned; else pinned; fi
  case $kind in
    project-conscrypt) server "$OUT/2-$kind.server.log" --scrypt conscrypt ;;
    project*) server "$OUT/2-$kind.server.log" ;;
    node*) peer node "$OUT/2-$kind.server.log" ;;
  esac
  url=$SERVER_URL
  heavy_server=$SERVER_PID
  heavy_clients=""
  if [[ $kind != *-idle-* ]]; then
    start_bg "$OUT/2-$kind.heavy.txt" "${CLIENT_CPU[@]}" "$JAVA" -jar "$JAR" load --url "$url" \
      --path /member/verify-pooled --concurrency "$CORES" --duration 3600s --timeout 600s
    heavy_clients=$BG_PID
    await_pool "$url" "$CORES"
    echo "$kind: crypto pool busy with $CORES looping /member/verify-pooled clients" \
       "($(curl -s "$url/runtime" | json_num derivationsRunning) derivations running)"
  fi
  if $HAVE_WRK; then
    # a longer warm-up than figure 1's: the first young collections must pass (see above)
    WARM_S=$((WARM_S * 2)) wrk_runs "2-$kind" "$url/books" -t1 -c10 --latency
    for i in $(seq "$REPS"); do
      figure "heavy.rate.$kind" "$(wrk_rate "$OUT/2-$kind.$i.wrk")" req/s "/books throughput beside heavy work: $kind"
      figure "heavy.p99.$kind" "$(wrk_ms "$OUT/2-$kind.$i.wrk" 99%)" ms "/books p99 (wrk) beside heavy work: $kind"
    done
    echo "$kind: wrk /books $(figure_median "heavy.rate.$kind") req/s, p99 $(figure_median "heavy.p99.$kind") ms" \
      "(medians of $REPS)"
  else
    skip "wrk /books throughput and p99 (no wrk)"
  fi
  if [[ $kind != *-unpinned ]]; then
    for i in $(seq "$REPS"); do
      loan_load --url "$url" --path /books --rate "$RATE" --duration "${DUR_S}s" --warmup-requests "$RATE" \
        --timeout 30s --json "$OUT/2-$kind.open-loop.$i.json" > "$OUT/2-$kind.open-loop.$i.txt" 2>&1 || true
      figure "heavy.open-loop-p99.$kind" "$(fixed 3 "$(json_get "$OUT/2-$kind.open-loop.$i.json" .latencyMs.p99)")" \
        ms "/books p99 at a fixed rate (load --rate, coordinated-omission corrected) beside heavy work: $kind"
      echo "$kind: load --rate $RATE /books" \
        "p50 $(fixed 3 "$(json_get "$OUT/2-$kind.open-loop.$i.json" .latencyMs.p50)") ms," \
        "p99 $(figure_values "heavy.open-loop-p99.$kind" | tail -n 1) ms (coordinated-omission corrected)," \
        "errors $(load_errors "$OUT/2-$kind.open-loop.$i.json")"
    done
  fi
  # derivations are still running: a graceful stop would wait for them
  [ -z "$heavy_clients" ] || stop_pid "$heavy_clients" KILL
  stop_server "$heavy_server" KILL
done
unpinned

table heavy "/books beside heavy work: medians over the repetitions (wrk -t1 -c10); the open loop: load --rate $RATE" \
  server pinned "heavy stream" "req/s" "p99 ms" "open-loop p99 ms"
for kind in "${heavy_kinds[@]}"; do
  pin=no
  if $CAN_PIN && [[ $kind != *-unpinned ]]; then pin=yes; fi
  table_row "$kind" "$pin" \
    "$([[ $kind == *-idle-* ]] && echo no || echo yes)" "$(figure_median "heavy.rate.$kind")" \
    "$(figure_median "heavy.p99.$kind")" "$(figure_median "heavy.open-loop-p99.$kind")"
done
table_end

if [[ " ${heavy_kinds[*]} " == *" project-idle-unpinned "* ]]; then
  ratios heavy.p99-ratio.project-idle-unpinned heavy.p99.project-idle-unpinned heavy.p99.node-idle-unpinned
  target "2 /books p99 ms, idle (unpinned) (info)" "$(figure_median heavy.p99.project-idle-unpinned)" node \
    "$(figure_median heavy.p99.node-idle-unpinned)" "$(figure_median heavy.p99-ratio.project-idle-unpinned)"
fi
for kind in project project-conscrypt project-unpinned; do
  [[ " ${heavy_kinds[*]} " == *" $kind "* ]] || continue   # conscrypt and unpinned: not in --short; need pinning
  label=${kind#project}; label=${label:+ (${label#-})}
  other=node; [ "$kind" = project-unpinned ] && other=node-unpinned
  ratios "heavy.rate-ratio.$kind" "heavy.rate.$kind" "heavy.rate.$other"
  ratios "heavy.p99-ratio.$kind" "heavy.p99.$kind" "heavy.p99.$other"
  # runs of the same server differ by several percent here: a ratio that close to 1 is not a win or a loss
  within "heavy.rate-ratio.$kind" 5%
  within "heavy.p99-ratio.$kind" 5%
  target "2 /books req/s, pool saturated$label" "$(figure_median "heavy.rate.$kind")" node \
    "$(figure_median "heavy.rate.$other")" "$(figure_median "heavy.rate-ratio.$kind")" \
    "2 /books beside a saturated crypto pool$label: the project serves more than the Node.js peer" \
    "heavy.rate-ratio.$kind" '>=' 1
  target "2 /books p99 ms (wrk)$label" "$(figure_median "heavy.p99.$kind")" node \
    "$(figure_median "heavy.p99.$other")" "$(figure_median "heavy.p99-ratio.$kind")" \
    "2 /books beside a saturated crypto pool$label: the project's p99 no worse than the Node.js peer's" \
    "heavy.p99-ratio.$kind" '<=' 1
  [ "$kind" = project-unpinned ] && continue
  ratios "heavy.open-loop-p99-ratio.$kind" "heavy.open-loop-p99.$kind" "heavy.open-loop-p99.$other"
  within "heavy.open-loop-p99-ratio.$kind" 10%   # a p99 of a few hundred requests a second moves more than wrk's
  target "2 /books p99 ms (load --rate $RATE)$label" "$(figure_median "heavy.open-loop-p99.$kind")" node \
    "$(figure_median "heavy.open-loop-p99.$other")" "$(figure_median "heavy.open-loop-p99-ratio.$kind")" \
    "2 /books beside a saturated crypto pool$label: the project's p99 at a fixed rate no worse than Node.js's" \
    "heavy.open-loop-p99-ratio.$kind" '<=' 1
done
