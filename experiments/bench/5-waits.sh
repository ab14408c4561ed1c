# shellcheck shell=bash
# Figure 5 of experiments/bench.sh (sourced by it): waiting work, unpinned. C concurrent GET /catalog/lookup?ms=100
# (wrk -t2 -cC, keep-alive) for each C of WAIT_LEVELS, against virtual threads, --threads platform with C platform
# threads (one per request: both models hold every wait at once and differ in what a waiting request costs), and the
# two peers. Little's law: C requests that each take 0.1 s allow at most C / 0.1 s req/s. Memory per in-flight
# request: the server's peak resident memory during the run (/proc/PID/status, every 100 ms) minus its resident
# memory idle (after a warm-up), divided by C.
# Figures wait_*; targets "5 C waits, virtual|platform, req/s / bound" (>= 0.8; >= 0.4 at 10,000).

section "5. waiting work: C concurrent GET /catalog/lookup?ms=$WAIT_MS (wrk -t2 -cC, keep-alive)"

# rss_kib PID: the resident memory of PID in KiB, or "-".
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -; }
# sample_rss PID: rss_kib PID every 100 ms while PID runs, one a line.
sample_rss() { while kill -0 "$1" 2>/dev/null; do rss_kib "$1"; sleep 0.1; done; }

declare -A wait_frac wait_rss wait_rate
wait_kinds=(virtual platform bare)
if $HAVE_NODE; then wait_kinds+=(node); else skip "the Node.js peer (no node)"; fi
if ! $HAVE_WRK; then
  skip "figure 5 needs wrk"
  wait_kinds=()
fi
printf '%-9s %7s %10s %10s %9s %9s %9s %12s  %s\n' server C req/s bound fraction idle-MiB peak-MiB KiB/request errors
for c in "${WAIT_LEVELS[@]}"; do
  bound=$(calc 'a / b' "$c" "$(calc 'a / 1000' "$WAIT_MS")")
  for kind in "${wait_kinds[@]}"; do
    case $kind in
      virtual)  server "$OUT/5-$kind-$c.server.log" ;;
      platform) server "$OUT/5-$kind-$c.server.log" --threads platform --platform-threads "$c" ;;
      *)        peer "$kind" "$OUT/5-$kind-$c.server.log" ;;
    esac
    url="$SERVER_URL/catalog/lookup?ms=$WAIT_MS"
    wrk -t2 -c50 -d"${WARM_S}s" "$url" > "$OUT/5-$kind-$c.warmup.wrk" 2>&1 || true
    idle=$(rss_kib "$SERVER_PID")
    start_bg "$OUT/5-$kind-$c.rss" sample_rss "$SERVER_PID"
    sampler=$BG_PID
    # 10,000 connections take seconds to open and to get their first answers on a busy machine: a longer run
    duration=$WAIT_S; [ "$c" -ge 10000 ] && duration=$((WAIT_S * 3))
    rates=()
    for i in $(seq "$REPS"); do
      wrk -t2 -c"$c" -d"${duration}s" --timeout 10s "$url" > "$OUT/5-$kind-$c.$i.wrk" 2>&1 || true
      rates+=("$(wrk_rate "$OUT/5-$kind-$c.$i.wrk")")
    done
    stop_pid "$sampler"
    peak=$( (echo "$idle"; cat "$OUT/5-$kind-$c.rss") | sort -g | tail -1)
    wait_rate[$kind-$c]=$(printf '%s\n' "${rates[@]}" | median)
    wait_frac[$kind-$c]=$(calc 'a / b' "${wait_rate[$kind-$c]}" "$bound")
    wait_rss[$kind-$c]=$(calc '(a - b) / c' "$peak" "$idle" "$c")
    printf '%-9s %7s %10s %10s %9s %9s %9s %12s  %s\n' "$kind" "$c" "${wait_rate[$kind-$c]}" "$bound" \
      "${wait_frac[$kind-$c]}" "$(calc 'a / 1024' "$idle")" "$(calc 'a / 1024' "$peak")" "${wait_rss[$kind-$c]}" \
      "$(wrk_errors "$OUT/5-$kind-$c.$REPS.wrk")"
    figure "wait_${c}_rps_$kind" "${wait_rate[$kind-$c]}"
    figure "wait_${c}_kib_per_request_$kind" "${wait_rss[$kind-$c]}"
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
