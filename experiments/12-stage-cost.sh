#!/usr/bin/env bash
# What the server costs per request beside bare Helidon: GET /books on kept-alive connections, `serve` (the default:
# stages off, pin watch and carrier-delay probe on), `serve --pin-watch off`, `serve --carrier-delay off`,
# `serve --stages on` and `serve` with its live page open (GET /runtime on its admin port each second, as the page
# polls), each against the bare Helidon peer (experiments/peers/BareHelidon.java: the same bytes, no project code),
# servers on CPU 0, clients on CPU 1.
#
# The method, pairs of servers running at once and their CPU per request, is experiments/lib/cpu_pairs.sh's.
#
#   experiments/12-stage-cost.sh [--short]      ROUNDS=3, PAIRS=3, RUN_S=8, WARM_S=30 (--short: 1, 5, 4, 4); a value
#                                               set in the environment wins
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
PAIRS=${PAIRS:-$(full_or_short 3 5)}   # a short pass too: a verdict on pairs stands on 5 at least
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
  "How much more CPU per /books request do serve, its pin watch, its carrier-delay probe, its stages and its live page take than bare Helidon?"
echo "rounds:  $ROUNDS, each with fresh servers; $PAIRS pairs of ${RUN_S} s per server and round;" \
  "warm-up 2 x $((WARM_S / 2)) s per server; wrk -t1 -c50 /books"
setting rounds "$ROUNDS"
setting pairs "$PAIRS"
setting run-seconds "$RUN_S"
setting warm-up-seconds "$WARM_S"

# The servers beside bare Helidon: bare-2 (the control, in experiments/lib/cpu_pairs.sh) and these.
KINDS=(unwatched undelayed serve stages live)
PAIR_LABEL[unwatched]="serve --pin-watch off"; PAIR_OPTIONS[unwatched]="--pin-watch off"
PAIR_LABEL[undelayed]="serve --carrier-delay off"; PAIR_OPTIONS[undelayed]="--carrier-delay off"
PAIR_LABEL[serve]="serve (default)"; PAIR_OPTIONS[serve]=""
PAIR_LABEL[stages]="serve --stages on"; PAIR_OPTIONS[stages]="--stages on"
PAIR_LABEL[live]="serve, its live page open"; PAIR_OPTIONS[live]=""; PAIR_POLL[live]=/runtime
cpu_pairs "$ROUNDS" "$PAIRS" "$RUN_S" "$WARM_S" "${KINDS[@]}"

# A ratio is bare's CPU per request over the server's, so a / b - 1 is how much more CPU per request b takes than a.
figure_per_round cost.pin-watch '(a / b - 1) * 100' ratio.unwatched ratio.serve % \
  "more CPU per request with the pin watch than with --pin-watch off"
figure_per_round cost.stages '(a / b - 1) * 100' ratio.serve ratio.stages % \
  "more CPU per request with --stages on than without"
figure_per_round cost.carrier-delay '(a / b - 1) * 100' ratio.undelayed ratio.serve % \
  "more CPU per request with the carrier-delay probe than with --carrier-delay off"
figure_per_round cost.live-page '(a / b - 1) * 100' ratio.serve ratio.live % \
  "more CPU per request with the live page open (its GET /runtime on the admin port each second) than without"
figure_per_round delay-on-over-off 'a / b' ratio.serve ratio.undelayed "" \
  "/books throughput per CPU with the carrier-delay probe, as a share of --carrier-delay off's"

echo
cpu_costs_table costs "${KINDS[@]}"
echo "the pin watch's cost: $(figure_median cost.pin-watch)% more CPU per request than with --pin-watch off (median)"
echo "the stages' cost: $(figure_median cost.stages)% more CPU per request with --stages on than without (median)"
echo "the carrier-delay probe's cost: $(figure_median cost.carrier-delay)% more CPU per request than with --carrier-delay off (median)"
echo "the live page's cost: $(figure_median cost.live-page)% more CPU per request with it open than without (median)"

echo
verdict_interval "the control's pairs are within 5% of 1: the method can tell a 5% cost" pair-ratio.bare-2 '>=' 0.95
verdict_interval "serve (default) does nearly bare Helidon's /books throughput per CPU" pair-ratio.serve '>=' 0.95
verdict_interval "serve --stages on does nearly bare Helidon's /books throughput per CPU" pair-ratio.stages '>=' 0.95
# The control's pairs say what the method can tell: a few percent. A cost that close to its goal is too close to call.
verdict_on "the stages cost little enough of /books throughput to record them by default" cost.stages '<' 2 within=5
verdict_on "the carrier-delay probe, on by default, keeps 99% of /books throughput per CPU" delay-on-over-off '>=' 0.99 \
  within=0.05
verdict_on "a live page open costs at most 1% more CPU per /books request" cost.live-page '<=' 1 within=5
end_experiment
