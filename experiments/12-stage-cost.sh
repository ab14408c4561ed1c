#!/usr/bin/env bash
# What the server costs per request beside bare Helidon: GET /books on kept-alive connections, `serve` (the default:
# stages off, pin watch on), `serve --pin-watch off` and `serve --stages on`, each against the bare Helidon peer
# (experiments/peers/BareHelidon.java: the same bytes, no project code), servers on CPU 0, clients on CPU 1.
#
# Throughput on a shared VM drifts by a factor of two within minutes, so a pair runs two servers at the same time,
# each under its own wrk -t1 -c50, and compares their CPU time per request (utime + stime from /proc over the
# requests wrk counted): drift hits both alike. A second bare peer measured the same way shows the method's own error
# (the shared peer runs in every pair, so it is the warmest), and the ratios are also given divided by it.
# Each JVM settles at a speed of its own once its JIT has compiled the request path (identical servers differ by a
# few percent), so every round starts all of them afresh: a kind's figure is the median over its processes of each
# process's median pair. Each server is warmed up by two wrk runs: the first run's connections closing makes the JIT
# throw away and recompile the request path (uncommon traps), which would otherwise land in the first pair.
#
#   experiments/12-stage-cost.sh [--short]      ROUNDS=3, PAIRS=3, RUN_S=8, WARM_S=30 (--short: 1, 2, 4, 8)
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-3}
RUN_S=${RUN_S:-8}
WARM_S=${WARM_S:-30}
if [ "${1:-}" = --short ]; then
  ROUNDS=1; PAIRS=2; RUN_S=4; WARM_S=8
elif [ -n "${1:-}" ]; then
  echo "usage: experiments/12-stage-cost.sh [--short]" >&2
  exit 2
fi
for name in ROUNDS PAIRS RUN_S WARM_S; do
  if [[ ! ${!name} =~ ^[1-9][0-9]*$ ]]; then
    echo "12-stage-cost.sh: $name must be a positive whole number, was '${!name}'" >&2
    exit 2
  fi
done
if [ "$WARM_S" -lt 2 ]; then
  echo "12-stage-cost.sh: WARM_S must be at least 2 (two warm-up runs of WARM_S / 2 s), was '$WARM_S'" >&2
  exit 2
fi
require_tools wrk taskset
if [ "$(nproc)" -lt 2 ]; then
  echo "12-stage-cost.sh: needs 2 CPUs (servers on CPU 0, clients on CPU 1), this machine has $(nproc)" >&2
  exit 1
fi
begin_experiment 12-stage-cost
TICK_US=$((1000000 / $(getconf CLK_TCK)))
echo "rounds:  $ROUNDS, each with fresh servers; $PAIRS pairs of ${RUN_S} s per server and round;" \
  "warm-up 2 x $((WARM_S / 2)) s per server; wrk -t1 -c50 /books"

# The servers: bare is the baseline every other one runs beside; bare-2 is a second copy of it (the control).
KINDS=(bare-2 unwatched serve stages)
declare -A URL PID LABEL
LABEL[bare-2]="bare Helidon, a second copy (control)"
LABEL[unwatched]="serve --pin-watch off"
LABEL[serve]="serve (default)"
LABEL[stages]="serve --stages on"

# start_all ROUND: starts every server afresh on CPU 0, logs named after ROUND.
start_all() {
  start_peer bare "$OUT/$1-bare.server.log" --cpu 0; keep bare
  start_peer bare "$OUT/$1-bare-2.server.log" --cpu 0; keep bare-2
  start_server "$OUT/$1-unwatched.server.log" --cpu 0 --pin-watch off; keep unwatched
  start_server "$OUT/$1-serve.server.log" --cpu 0; keep serve
  start_server "$OUT/$1-stages.server.log" --cpu 0 --stages on; keep stages
}

# keep KIND: the server just started is KIND's.
keep() {
  URL[$1]=$SERVER_URL; PID[$1]=$SERVER_PID
}

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
    wrk_requests "$1"
  fi
}

# One line per pair: round kind pair bare_ticks bare_requests kind_ticks kind_requests.
: > "$OUT/pairs.txt"
for round in $(seq "$ROUNDS"); do
  start_all "$round"
  for kind in bare "${KINDS[@]}"; do
    for half in 1 2; do
      client "$round-warm$half-$kind" "$kind" $((WARM_S / 2))
      wait_pid "$BG_PID" || true
    done
  done
  for pair in $(seq "$PAIRS"); do
    # The order rotates with the pair and the round, so that no kind always runs first after the warm-up or last
    # before the servers stop.
    for k in $(seq 0 $((${#KINDS[@]} - 1))); do
      kind=${KINDS[$(((round + pair + k) % ${#KINDS[@]}))]}
      base_before=$(cpu_ticks "${PID[bare]}"); kind_before=$(cpu_ticks "${PID[$kind]}")
      client "$round-$pair-$kind-bare" bare "$RUN_S"; base_client=$BG_PID
      client "$round-$pair-$kind" "$kind" "$RUN_S"; kind_client=$BG_PID
      wait_pid "$base_client" || true
      wait_pid "$kind_client" || true
      echo "$round $kind $pair $(($(cpu_ticks "${PID[bare]}") - base_before))" \
        "$(requests "$OUT/$round-$pair-$kind-bare.wrk") $(($(cpu_ticks "${PID[$kind]}") - kind_before))" \
        "$(requests "$OUT/$round-$pair-$kind.wrk")" >> "$OUT/pairs.txt"
    done
  done
  for kind in bare "${KINDS[@]}"; do
    stop_pid "${PID[$kind]}" KILL
  done
done

echo
echo "Per pair: CPU microseconds per request of bare Helidon and of the server beside it; the ratio bare / server is"
echo "the server's throughput per CPU as a share of bare Helidon's (1.00: as cheap; 0.95: 5% more CPU per request)."
printf '%-6s %-10s %5s %14s %14s %8s\n' round server pair "bare us/req" "server us/req" ratio
# One line per pair whose two wrk runs both counted requests: round kind pair bare_us server_us ratio.
awk -v tick="$TICK_US" '$5 != "-" && $7 != "-" && $5 > 0 && $7 > 0 && $6 > 0 {
  printf "%s %s %s %.9f %.9f %.9f\n", $1, $2, $3, $4 * tick / $5, $6 * tick / $7, ($4 / $5) / ($6 / $7)
}' "$OUT/pairs.txt" > "$OUT/ratios.txt"
awk '{ printf "%-6s %-10s %5s %14.2f %14.2f %8.3f\n", $1, $2, $3, $4, $5, $6 }' "$OUT/ratios.txt"
awk '$5 == "-" || $7 == "-" { print "round " $1 " " $2 " pair " $3 ": a wrk run failed or had errors (" $0 "), left out" }' \
  "$OUT/pairs.txt"

# One line per process: round kind median-of-its-pairs.
for round in $(seq "$ROUNDS"); do
  for kind in "${KINDS[@]}"; do
    m=$(awk -v r="$round" -v k="$kind" '$1 == r && $2 == k { print $6 }' "$OUT/ratios.txt" | sort -g | median)
    if [ "$m" != - ]; then echo "$round $kind $m"; fi
  done
done > "$OUT/processes.txt"

declare -A MEDIAN
echo
echo "Per kind: the median over its processes (one per round) of each process's median pair, the slowest and the"
echo "fastest process; 'corrected' divides by the control's median: the bare peer every pair shares has run in every"
echo "pair, and the control shows what that is worth to it."
printf '%-38s %8s %8s %8s %9s %10s\n' "server (beside bare Helidon)" median min max processes corrected
for kind in "${KINDS[@]}"; do
  mapfile -t sorted < <(awk -v k="$kind" '$2 == k { print $3 }' "$OUT/processes.txt" | sort -g)
  if [ "${#sorted[@]}" -eq 0 ]; then
    echo "12-stage-cost.sh: no valid pair for ${LABEL[$kind]}" >&2
    exit 1
  fi
  MEDIAN[$kind]=$(printf '%s\n' "${sorted[@]}" | median)
  printf '%-38s %8s %8s %8s %9s %10s\n' "${LABEL[$kind]}" "$(fixed 3 "${MEDIAN[$kind]}")" \
    "$(fixed 3 "${sorted[0]}")" "$(fixed 3 "${sorted[-1]}")" "${#sorted[@]}" \
    "$(fixed 3 "$(calc 'a / b' "${MEDIAN[$kind]}" "${MEDIAN[bare-2]}")")"
done
serve=$(calc 'a / b' "${MEDIAN[serve]}" "${MEDIAN[bare-2]}")
stages=$(calc 'a / b' "${MEDIAN[stages]}" "${MEDIAN[bare-2]}")
# A kind's ratio is bare's CPU per request over its own, so a / b - 1 is how much more CPU per request b takes than a.
watch_cost=$(calc '(a / b - 1) * 100' "${MEDIAN[unwatched]}" "${MEDIAN[serve]}")
stages_cost=$(calc '(a / b - 1) * 100' "${MEDIAN[serve]}" "${MEDIAN[stages]}")
echo "the pin watch's cost: $(fixed 1 "$watch_cost")% more CPU per request than with --pin-watch off (from the medians)"
echo "the stages' cost: $(fixed 1 "$stages_cost")% more CPU per request with --stages on than without (from the medians)"

echo
verdict "the method's error is small: a second bare Helidon within 0.95-1.05 of the first" \
  "$(truth holds "(${MEDIAN[bare-2]} >= 0.95) && (${MEDIAN[bare-2]} <= 1.05)" '==' 1)"
verdict "serve (default) does >= 0.95 x bare Helidon's /books throughput per CPU (corrected)" \
  "$(truth holds "$serve" '>=' 0.95)"
verdict "serve --stages on does >= 0.95 x bare Helidon's /books throughput per CPU (corrected)" \
  "$(truth holds "$stages" '>=' 0.95)"
verdict "the stages cost < 2% of /books throughput (the bar for recording them by default)" \
  "$(truth holds "$stages_cost" '<' 2)"
