# shellcheck shell=bash
# Figure 5 of experiments/bench.sh (sourced by it): waiting work, pinned as figures 1 and 2 are (the server on CPU 0,
# wrk on CPU 1, whose busy share over each run is recorded: a run that kept it busy measured wrk, is client-bound, and
# its verdict inconclusive). C concurrent GET /catalog/lookup?ms=100 (wrk -cC, keep-alive) for each C of WAIT_LEVELS,
# against virtual threads, --threads platform with C platform threads (one per request: both models hold every wait
# at once and differ in what a waiting request costs), and the two peers. Little's law: C requests that each take
# 0.1 s allow at most C / 0.1 s req/s. Memory per in-flight request: the server's peak resident memory during the run
# (/proc/PID/status, every 100 ms) minus its resident memory idle (after a warm-up), divided by C.
# --short leaves out the peers.
# Figures waits.C.* (req/s and its share of the bound: one round per run; memory: one per server); targets "5 C waits,
# virtual|platform, req/s / bound" (>= 0.8; >= 0.4 at 10,000).

section "5. waiting work: C concurrent GET /catalog/lookup?ms=$WAIT_MS (wrk -cC, keep-alive)"
pinned

# rss_kib PID: the resident memory of PID in KiB, or "-".
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -; }
# sample_rss PID: rss_kib PID every 100 ms while PID runs, one a line.
sample_rss() { while kill -0 "$1" 2>/dev/null; do rss_kib "$1"; sleep 0.1; done; }

wait_kinds=(virtual platform)
if $EVERY_VARIANT || [ "$MODE" = smoke ]; then   # the smoke too: no other figure asks the peers to wait
  wait_kinds+=(bare)
  if $HAVE_NODE; then wait_kinds+=(node); else skip "the Node.js peer (no node)"; fi
fi
if ! $HAVE_WRK; then
  skip "figure 5 needs wrk"
  wait_kinds=()
fi
table waits "C concurrent waits of $WAIT_MS ms: req/s (median of $REPS runs) against Little's law's bound (C / \
$WAIT_MS ms); resident memory idle, at its peak during the runs, and per in-flight request" \
  server C "req/s" "bound req/s" "share of bound" "idle MiB" "peak MiB" "KiB/request" "wrk CPU busy" errors
for c in "${WAIT_LEVELS[@]}"; do
  bound=$(calc 'a / b' "$c" "$(calc 'a / 1000' "$WAIT_MS")")
  for kind in "${wait_kinds[@]}"; do
    case $kind in
      virtual)  server "$OUT/5-$kind-$c.server.log" ;;
      platform) server "$OUT/5-$kind-$c.server.log" --threads platform --platform-threads "$c" ;;
      *)        peer "$kind" "$OUT/5-$kind-$c.server.log" ;;
    esac
    url="$SERVER_URL/catalog/lookup?ms=$WAIT_MS"
    "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${WARM_S}s" "$url" > "$OUT/5-$kind-$c.warmup.wrk" 2>&1 || true
    idle=$(rss_kib "$SERVER_PID")
    start_bg "$OUT/5-$kind-$c.rss" sample_rss "$SERVER_PID"
    sampler=$BG_PID
    # 10,000 connections take seconds to open and to get their first answers on a busy machine: a longer run
    duration=$WAIT_S; [ "$c" -ge 10000 ] && duration=$((WAIT_S * 3))
    for i in $(seq "$REPS"); do
      client_before=$(cpu_ticks 1)
      "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c"$c" -d"${duration}s" --timeout 10s "$url" \
        > "$OUT/5-$kind-$c.$i.wrk" 2>&1 || true
      if $CAN_PIN; then
        busy=$(cpu_busy_share "$client_before" "$(cpu_ticks 1)")
        figure "waits.$c.client-busy.$kind" "$busy" "" "$c concurrent waits, share of CPU 1 (wrk) busy: $kind"
        figure "waits.$c.client-bound.$kind" "$(if holds "$busy" '>=' 0.95; then echo 1; else echo 0; fi)" "" \
          "$c concurrent waits, 1 when wrk kept its CPU busy (the rate may be wrk's ceiling): $kind"
      fi
      figure "waits.$c.rate.$kind" "$(wrk_rate "$OUT/5-$kind-$c.$i.wrk")" req/s "$c concurrent waits: $kind"
      figure "waits.$c.share.$kind" "$(calc 'a / b' "$(wrk_rate "$OUT/5-$kind-$c.$i.wrk")" "$bound")" "" \
        "$c concurrent waits, req/s over Little's law's bound: $kind"
    done
    stop_pid "$sampler"
    peak=$( (echo "$idle"; cat "$OUT/5-$kind-$c.rss") | sort -g | tail -1)
    figure "waits.$c.kib-per-request.$kind" "$(calc '(a - b) / c' "$peak" "$idle" "$c")" KiB \
      "$c concurrent waits, resident memory per in-flight request: $kind"
    errors=$(wrk_errors "$OUT/5-$kind-$c.$REPS.wrk")
    table_row "$kind" "$c" "$(figure_median "waits.$c.rate.$kind")" "$bound" "$(figure_median "waits.$c.share.$kind")" \
      "$(calc 'a / 1024' "$idle")" "$(calc 'a / 1024' "$peak")" "$(figure_median "waits.$c.kib-per-request.$kind")" \
      "$(figure_median "waits.$c.client-busy.$kind")" "${errors:-none}"
    stop_server "$SERVER_PID"
  done
done
table_end
for c in "${WAIT_LEVELS[@]}"; do
  goal=0.8; [ "$c" -ge 10000 ] && goal=0.4
  bound=$(calc 'a / b' "$c" "$(calc 'a / 1000' "$WAIT_MS")")
  for kind in virtual platform; do
    target "5 $c waits, $kind, req/s / bound" "$(figure_median "waits.$c.rate.$kind")" "Little's law" "$bound" \
      "$(figure_median "waits.$c.share.$kind")" \
      "5 $c concurrent waits on $kind threads come near Little's law's bound" "waits.$c.share.$kind" '>=' "$goal" \
      "waits.$c.client-bound.$kind"
  done
  if $EVERY_VARIANT; then
    for kind in bare node; do
      ratios "waits.$c.rate-ratio.vs-$kind" "waits.$c.rate.virtual" "waits.$c.rate.$kind"
      target "5 $c waits, $kind peer (info)" "$(figure_median "waits.$c.rate.virtual")" "$kind" \
        "$(figure_median "waits.$c.rate.$kind")" "$(figure_median "waits.$c.rate-ratio.vs-$kind")"
    done
  fi
  ratios "waits.$c.kib-ratio.virtual-vs-platform" "waits.$c.kib-per-request.virtual" "waits.$c.kib-per-request.platform"
  target "5 $c waits, KiB/request virtual vs platform" "$(figure_median "waits.$c.kib-per-request.virtual")" platform \
    "$(figure_median "waits.$c.kib-per-request.platform")" "$(figure_median "waits.$c.kib-ratio.virtual-vs-platform")"
done
