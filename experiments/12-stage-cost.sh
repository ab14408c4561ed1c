#!/usr/bin/env bash
# What the server costs per request beside bare Helidon: GET /books on kept-alive connections, `serve` (the default:
# stages off, pin watch and carrier-delay probe on), `serve --pin-watch off`, `serve --carrier-delay off` and
# `serve --stages on`, each against the bare Helidon peer
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
#   experiments/12-stage-cost.sh [--short]      ROUNDS=3, PAIRS=3, RUN_S=8, WARM_S=30 (--short: 1, 1, 4, 4); a value
#                                               set in the environment wins
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
PAIRS=${PAIRS:-$(full_or_short 3 1)}
RUN_S=${RUN_S:-$(full_or_short 8 4)}
WARM_S=${WARM_S:-$(full_or_short 30 4)}
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
begin_experiment 12-stage-cost \
  "How much more CPU per /books request do serve, its pin watch, its carrier-delay probe and its stages take than bare Helidon?"
TICK_US=$((1000000 / $(getconf CLK_TCK)))
echo "rounds:  $ROUNDS, each with fresh servers; $PAIRS pairs of ${RUN_S} s per server and round;" \
  "warm-up 2 x $((WARM_S / 2)) s per server; wrk -t1 -c50 /books"
setting rounds "$ROUNDS"
setting pairs "$PAIRS"
setting run-seconds "$RUN_S"
setting warm-up-seconds "$WARM_S"

# The servers: bare is the baseline every other one runs beside; bare-2 is a second copy of it (the control).
KINDS=(bare-2 unwatched undelayed serve stages)
declare -A URL PID LABEL
LABEL[bare-2]="bare Helidon, a second copy (control)"
LABEL[unwatched]="serve --pin-watch off"
LABEL[undelayed]="serve --carrier-delay off"
LABEL[serve]="serve (default)"
LABEL[stages]="serve --stages on"

# start_all ROUND: starts every server afresh on CPU 0, logs named after ROUND.
start_all() {
  start_peer bare "$OUT/$1-bare.server.log" --cpu 0; keep bare
  start_peer bare "$OUT/$1-bare-2.server.log" --cpu 0; keep bare-2
  start_server "$OUT/$1-unwatched.server.log" --cpu 0 --pin-watch off; keep unwatched
  start_server "$OUT/$1-undelayed.server.log" --cpu 0 --carrier-delay off; keep undelayed
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
# Every pair is a round of its kind's figures; a pair whose wrk runs did not both count requests is "-" in them.
# ratios.txt: one line per pair, round kind ratio.
table pairs "CPU per /books request, each pair: bare Helidon and the server beside it at the same time" \
  round server pair "bare CPU us/req" "server CPU us/req" "bare/server"
while read -r round kind pair base_ticks base_requests kind_ticks kind_requests; do
  base_us=-; kind_us=-; ratio=-
  if [ "$base_requests" = - ] || [ "$kind_requests" = - ] || [ "$kind_ticks" -eq 0 ]; then
    echo "round $round $kind pair $pair: a wrk run failed or had errors, left out"
  else
    read -r base_us kind_us ratio < <(awk -v bt="$base_ticks" -v br="$base_requests" -v kt="$kind_ticks" \
      -v kr="$kind_requests" -v tick="$TICK_US" 'BEGIN { printf "%.2f %.2f %.4f\n", bt * tick / br, kt * tick / kr,
        (bt / br) / (kt / kr) }')
  fi
  figure "us-per-request.bare-beside-$kind" "$base_us" us "bare Helidon's CPU per request beside ${LABEL[$kind]}"
  figure "us-per-request.$kind" "$kind_us" us "CPU per request: ${LABEL[$kind]}"
  figure "pair-ratio.$kind" "$ratio" "" "bare / server CPU per request, one pair: ${LABEL[$kind]}"
  table_row "$round" "$kind" "$pair" "$base_us" "$kind_us" "$ratio"
  echo "$round $kind $ratio" >> "$OUT/ratios.txt"
done < "$OUT/pairs.txt"
table_end

# A kind's figure in a round is its process's median pair. The control (bare-2) ran beside the same bare peer in the
# same round, so dividing by it takes out what that round's peer gained from running in every pair.
declare -A M
for round in $(seq "$ROUNDS"); do
  for kind in "${KINDS[@]}"; do
    M[$kind]=$(awk -v r="$round" -v k="$kind" '$1 == r && $2 == k { print $3 }' "$OUT/ratios.txt" | median)
    figure "ratio.$kind" "${M[$kind]}" "" "bare / server CPU per request, the round's process: ${LABEL[$kind]}"
  done
  for kind in unwatched undelayed serve stages; do
    figure "corrected.$kind" "$(calc 'a / b' "${M[$kind]}" "${M[bare-2]}")" "" \
      "the same divided by the control's: ${LABEL[$kind]}"
  done
  figure control-error "$(calc 'a < 1 ? 1 - a : a - 1' "${M[bare-2]}")" "" \
    "how far the control's ratio is from 1"
  # A ratio is bare's CPU per request over the server's, so a / b - 1 is how much more CPU per request b takes than a.
  figure cost.pin-watch "$(calc '(a / b - 1) * 100' "${M[unwatched]}" "${M[serve]}")" % \
    "more CPU per request with the pin watch than with --pin-watch off"
  figure cost.stages "$(calc '(a / b - 1) * 100' "${M[serve]}" "${M[stages]}")" % \
    "more CPU per request with --stages on than without"
  figure cost.carrier-delay "$(calc '(a / b - 1) * 100' "${M[undelayed]}" "${M[serve]}")" % \
    "more CPU per request with the carrier-delay probe than with --carrier-delay off"
  figure delay-on-over-off "$(calc 'a / b' "${M[serve]}" "${M[undelayed]}")" "" \
    "/books throughput per CPU with the carrier-delay probe, as a share of --carrier-delay off's"
done
for kind in "${KINDS[@]}"; do
  if [ "$(figure_median "ratio.$kind")" = - ]; then
    echo "12-stage-cost.sh: no valid pair for ${LABEL[$kind]}" >&2
    exit 1
  fi
done

echo
table costs "/books throughput per CPU as a share of bare Helidon's (its CPU per request / the server's): over the \
rounds, each process's median pair; corrected: divided by the same round's control" \
  "server (beside bare Helidon)" median min max rounds corrected
for kind in "${KINDS[@]}"; do
  corrected=-
  [ "$kind" = bare-2 ] || corrected=$(figure_median "corrected.$kind")
  mapfile -t sorted < <(figure_values "ratio.$kind" | grep -v '^-$' | sort -g)
  table_row "${LABEL[$kind]}" "$(figure_median "ratio.$kind")" "${sorted[0]}" "${sorted[-1]}" "${#sorted[@]}" "$corrected"
done
table_end
echo "the pin watch's cost: $(figure_median cost.pin-watch)% more CPU per request than with --pin-watch off (median)"
echo "the stages' cost: $(figure_median cost.stages)% more CPU per request with --stages on than without (median)"
echo "the carrier-delay probe's cost: $(figure_median cost.carrier-delay)% more CPU per request than with --carrier-delay off (median)"

echo
verdict_on "the method's error is small: a second bare Helidon costs what the first does" control-error '<=' 0.05
verdict_on "serve (default) does nearly bare Helidon's /books throughput per CPU (corrected)" corrected.serve '>=' 0.95
verdict_on "serve --stages on does nearly bare Helidon's /books throughput per CPU (corrected)" corrected.stages '>=' 0.95
verdict_on "the stages cost little enough of /books throughput to record them by default" cost.stages '<' 2
verdict_on "the carrier-delay probe, on by default, keeps 99% of /books throughput per CPU" delay-on-over-off '>=' 0.99
end_experiment
