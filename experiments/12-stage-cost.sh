#!/usr/bin/env bash
# What the server costs per request beside bare Helidon, with and without the request stages: GET /books on kept-alive
# connections, `serve` (default: --stages off) and `serve --stages on` each against the bare Helidon peer
# (experiments/peers/BareHelidon.java: the same bytes, no project code), servers on CPU 0, clients on CPU 1.
#
# Throughput on a shared VM drifts by a factor of two within minutes, so a round runs two servers at the same time,
# each under its own wrk -t1 -c50, and compares their CPU time per request (utime + stime from /proc over the
# requests wrk counted): drift hits both alike. A second bare peer measured the same way shows the method's own error
# (the shared peer runs in every pair, so it is the warmest), and the ratios are also given divided by it.
# Each server is warmed up by two wrk runs: the first run's connections closing makes the JIT throw away and
# recompile the request path (uncommon traps), which would otherwise land in the first round.
#
#   experiments/12-stage-cost.sh [--short]      ROUNDS=10, RUN_S=10, WARM_S=40 (--short: 3, 4, 8)
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

ROUNDS=${ROUNDS:-10}
RUN_S=${RUN_S:-10}
WARM_S=${WARM_S:-40}
if [ "${1:-}" = --short ]; then
  ROUNDS=3; RUN_S=4; WARM_S=8
elif [ -n "${1:-}" ]; then
  echo "usage: experiments/12-stage-cost.sh [--short]" >&2
  exit 2
fi
for name in ROUNDS RUN_S WARM_S; do
  if [[ ! ${!name} =~ ^[1-9][0-9]*$ ]]; then
    echo "12-stage-cost.sh: $name must be a positive whole number, was '${!name}'" >&2
    exit 2
  fi
done
require_tools wrk taskset
if [ "$(nproc)" -lt 2 ]; then
  echo "12-stage-cost.sh: needs 2 CPUs (servers on CPU 0, clients on CPU 1), this machine has $(nproc)" >&2
  exit 1
fi
begin_experiment 12-stage-cost
TICK_US=$((1000000 / $(getconf CLK_TCK)))
echo "rounds:  $ROUNDS of ${RUN_S} s per pair; warm-up 2 x $((WARM_S / 2)) s per server; wrk -t1 -c50 /books"

# The servers: bare is the baseline every other one runs beside; bare-2 is a second copy of it (the control).
KINDS=(bare-2 off on)
declare -A URL PID
start_peer bare "$OUT/bare.server.log" --cpu 0
URL[bare]=$SERVER_URL; PID[bare]=$SERVER_PID
start_peer bare "$OUT/bare-2.server.log" --cpu 0
URL[bare-2]=$SERVER_URL; PID[bare-2]=$SERVER_PID
start_server "$OUT/off.server.log" --cpu 0 --stages off
URL[off]=$SERVER_URL; PID[off]=$SERVER_PID
start_server "$OUT/on.server.log" --cpu 0 --stages on
URL[on]=$SERVER_URL; PID[on]=$SERVER_PID

# client NAME KIND SECONDS: wrk on CPU 1 against KIND's /books in the background, output to $OUT/NAME.wrk; sets
# BG_PID.
client() {
  start_bg "$OUT/$1.wrk" taskset -c 1 wrk -t1 -c50 -d"$3s" "${URL[$2]}/books"
}

# cpu_ticks PID: the process's user + system CPU time so far, in clock ticks.
cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# requests FILE: how many requests a wrk run completed; "-" when it failed or had errors (non-2xx, socket errors).
requests() {
  if [ "$(wrk_errors "$1")" != "" ]; then
    echo -
  else
    awk '/ requests in / { print $1; f = 1 } END { if (!f) print "-" }' "$1"
  fi
}

for kind in bare "${KINDS[@]}"; do
  for half in 1 2; do
    client "warm-$kind-$half" "$kind" $((WARM_S / 2))
    wait_pid "$BG_PID" || true
  done
done

# One line per pair: round kind bare_ticks bare_requests kind_ticks kind_requests.
: > "$OUT/pairs.txt"
for round in $(seq "$ROUNDS"); do
  # The order rotates, so that no kind always runs first after the warm-up or last before the end.
  for k in 0 1 2; do
    kind=${KINDS[$(((round + k) % 3))]}
    base_before=$(cpu_ticks "${PID[bare]}"); kind_before=$(cpu_ticks "${PID[$kind]}")
    client "$round-$kind-bare" bare "$RUN_S"; base_client=$BG_PID
    client "$round-$kind" "$kind" "$RUN_S"; kind_client=$BG_PID
    wait_pid "$base_client" || true
    wait_pid "$kind_client" || true
    echo "$round $kind $(($(cpu_ticks "${PID[bare]}") - base_before)) $(requests "$OUT/$round-$kind-bare.wrk")" \
      "$(($(cpu_ticks "${PID[$kind]}") - kind_before)) $(requests "$OUT/$round-$kind.wrk")" >> "$OUT/pairs.txt"
  done
done

echo
echo "Per pair: CPU microseconds per request of bare Helidon and of the server beside it; the ratio bare / server is"
echo "the server's throughput per CPU as a share of bare Helidon's (1.00: as cheap; 0.95: 5% more CPU per request)."
printf '%-6s %-7s %14s %14s %8s\n' round server "bare us/req" "server us/req" ratio
# One line per pair whose two wrk runs both counted requests: round kind bare_us server_us ratio.
awk -v tick="$TICK_US" '$4 != "-" && $6 != "-" && $4 > 0 && $6 > 0 && $5 > 0 {
  printf "%s %s %.9f %.9f %.9f\n", $1, $2, $3 * tick / $4, $5 * tick / $6, ($3 / $4) / ($5 / $6)
}' "$OUT/pairs.txt" > "$OUT/ratios.txt"
awk '{ printf "%-6s %-7s %14.2f %14.2f %8.3f\n", $1, $2, $3, $4, $5 }' "$OUT/ratios.txt"
awk '$4 == "-" || $6 == "-" { print "round " $1 " " $2 ": a wrk run failed or had errors (" $0 "), left out" }' \
  "$OUT/pairs.txt"

declare -A MEDIAN
echo
echo "Medians over the pairs; 'corrected' divides by the control's median: the bare peer every pair shares has run"
echo "in every pair (three times the others' traffic), and the control shows what that is worth to it."
printf '%-38s %8s %8s %8s %6s %10s\n' "server (beside bare Helidon)" median min max pairs corrected
for kind in "${KINDS[@]}"; do
  mapfile -t sorted < <(awk -v k="$kind" '$2 == k { print $5 }' "$OUT/ratios.txt" | sort -g)
  MEDIAN[$kind]=$(printf '%s\n' "${sorted[@]}" | median)
  case $kind in
    bare-2) label="bare Helidon, a second copy (control)" ;;
    off) label="serve (default: --stages off)" ;;
    on) label="serve --stages on" ;;
  esac
  printf '%-38s %8s %8s %8s %6s %10s\n' "$label" "$(fixed 3 "${MEDIAN[$kind]}")" \
    "$(fixed 3 "$(printf '%s\n' "${sorted[@]}" | head -1)")" "$(fixed 3 "$(printf '%s\n' "${sorted[@]}" | tail -1)")" \
    "${#sorted[@]}" "$(calc 'a / b' "${MEDIAN[$kind]}" "${MEDIAN[bare-2]}")"
done
off=$(calc 'a / b' "${MEDIAN[off]}" "${MEDIAN[bare-2]}")
on=$(calc 'a / b' "${MEDIAN[on]}" "${MEDIAN[bare-2]}")
cost=$(calc '(1 - b / a) * 100' "${MEDIAN[off]}" "${MEDIAN[on]}")
echo "the stages' cost: $cost% more CPU per request with --stages on than off (from the two medians)"

echo
verdict "the method's error is small: a second bare Helidon within 0.95-1.05 of the first" \
  "$(truth holds "(${MEDIAN[bare-2]} >= 0.95) && (${MEDIAN[bare-2]} <= 1.05)" '==' 1)"
verdict "serve (default) does >= 0.95 x bare Helidon's /books throughput per CPU (corrected)" \
  "$(truth holds "$off" '>=' 0.95)"
verdict "serve --stages on does >= 0.95 x bare Helidon's /books throughput per CPU (corrected)" \
  "$(truth holds "$on" '>=' 0.95)"
verdict "the stages cost < 2% of /books throughput (the bar for recording them by default)" \
  "$(truth holds "$cost" '<' 2)"
