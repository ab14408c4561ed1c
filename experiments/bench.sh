#!/usr/bin/env bash
# Side-by-side benchmark: the loan service against two peers, in one run on this machine.
#   - a bare Helidon server (experiments/peers/BareHelidon.java) answering the same bytes from byte arrays, with none
#     of the project's code;
#   - a Node.js server (experiments/peers/loan-peer.js): the runtime the lesson measures, single process and
#     cluster;
#   - in figure 1, a Netty server on one event loop (experiments/peers/NettyPeer.java): the JVM's own event loop.
# Figures, one stage file each under experiments/bench/: 1 /books keep-alive CPU per request (and throughput), in
# interleaved pairs; 2 /books beside a saturated
# crypto pool (throughput, p99); 3 scrypt cost (one derivation, derivations/s with a pool of one thread per core);
# 4 worker start and replacement after kill -9; 5 waiting work at 1,000 and 10,000 concurrent 100 ms waits (Little's
# law, memory). Prints the configuration, one section per figure, then the summary table (target, project, peer,
# ratio, goal, met) and a verdict on each goal: held, failed or inconclusive, from the 95% bootstrap interval of the
# median of its repetitions' (or pairs') ratios. Every timed run is a round of its figure in the record,
# experiments/results/bench/record.json.
#
# Usage: experiments/bench.sh [--short | --quick | --smoke]
#   --short  the record's quick pass: two short runs per figure (figure 1: five pairs), without the variants (conscrypt,
#            bouncycastle, unpinned, the peers of figure 5) and without 10,000 waits
#   --quick  short runs, one repetition (development)
#   --smoke  every figure once, for seconds, without the variants (as --short); figures printed, no verdicts
#            ("not measured: --smoke") (CI)
# Needs jq; wrk for throughput and node for the Node.js peer (it skips what needs a missing one and says so).
# BENCH_JVM_FLAGS (space-separated) go to every JVM server, the project's and the bare Helidon peer alike.
# BENCH_PIN=false runs every process on every CPU (by default figures 1, 2 and 5 pin servers and clients apart).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=full
args=()   # what run_mode reads
for arg in "$@"; do
  case $arg in
    --quick) MODE=quick ;;
    --smoke) MODE=smoke ;;
    --short|-h|--help) args+=("$arg") ;;
    *) echo "bench.sh: unknown option '$arg' (allowed: --short, --quick, --smoke, --help)" >&2; exit 2 ;;
  esac
done

source experiments/lib/init.sh
run_mode "${args[@]}"
if [ "$RUN_MODE" = short ] && [ "$MODE" = full ]; then MODE=short; fi
# --quick and --smoke are quick passes too: the record's mode and the verdicts' basis say so
if [ "$MODE" != full ]; then RUN_MODE=short; fi
require_tools jq
begin_experiment bench "How does the loan service measure up to bare Helidon and a Node.js peer, figure by figure, on this machine?"

CORES=$(nproc)
EVERY_VARIANT=true   # --short and --smoke leave out the variants beside the defaults
BOOKS_PAIRS=5   # figure 1's interleaved pairs: at least 5 in a record and its short pass (MIN_PAIRS), 1 in --quick
case $MODE in
  full)  REPS=3; WARM_S=3; DUR_S=8; RATE=200; SCRYPT_SINGLE=3; SCRYPT_PER_CLIENT=3; WAIT_LEVELS=(1000 10000)
      SCRYPT_ROUNDS=3; WAIT_S=5 ;;
  quick) BOOKS_PAIRS=1; REPS=1; WARM_S=1; DUR_S=3; RATE=200; SCRYPT_SINGLE=1; SCRYPT_PER_CLIENT=1; WAIT_LEVELS=(1000 10000)
      SCRYPT_ROUNDS=1; WAIT_S=3 ;;
  short) BOOKS_PAIRS=5; REPS=2; WARM_S=1; DUR_S=2; RATE=200; SCRYPT_SINGLE=1; SCRYPT_PER_CLIENT=1; WAIT_LEVELS=(1000)
      SCRYPT_ROUNDS=3; WAIT_S=2; EVERY_VARIANT=false ;;
  smoke) BOOKS_PAIRS=1; REPS=1; WARM_S=1; DUR_S=1; RATE=100; SCRYPT_SINGLE=1; SCRYPT_PER_CLIENT=1; WAIT_LEVELS=(200)
      SCRYPT_ROUNDS=1; WAIT_S=1; EVERY_VARIANT=false ;;   # CI's check that each figure runs: the variants share its code
esac
WAIT_MS=100
HAVE_WRK=false; command -v wrk >/dev/null && HAVE_WRK=true
WRK_VERSION=missing   # wrk --version exits 1 after printing it
$HAVE_WRK && WRK_VERSION=$( (wrk --version 2>&1 || true) | head -1 | cut -d' ' -f2)
HAVE_NODE=false; command -v node >/dev/null && HAVE_NODE=true
read -r -a JVM_FLAGS <<< "${BENCH_JVM_FLAGS:-}"
JVM_OPTS=()   # the flags as start_server and start_peer take them
for flag in "${JVM_FLAGS[@]}"; do JVM_OPTS+=(--jvm "$flag"); done

# Throughput figures put the servers on CPU 0 and every client on CPU 1, so that no client takes a server's core:
# unpinned, wrk and a server fight for the same cores and the ratio says more about the scheduler than the server.
# A server so confined sees one CPU and runs its one-CPU defaults (the JVM: one carrier, one crypto thread, the
# Serial collector; Node.js is one event loop beside libuv's pool anyway). BENCH_PIN=false, one CPU, or no taskset:
# everything runs unpinned.
CAN_PIN=false
if [ "${BENCH_PIN:-true}" = true ] && [ "$CORES" -ge 2 ] && command -v taskset >/dev/null; then CAN_PIN=true; fi
SERVER_CPU=(); CLIENT_CPU=()   # what server, peer and the clients use now: pinned and unpinned set them
pinned() { if $CAN_PIN; then SERVER_CPU=(--cpu 0); CLIENT_CPU=(taskset -c 1); fi; }
unpinned() { SERVER_CPU=(); CLIENT_CPU=(); }

# --- what the stage files use --------------------------------------------------------------------------------------
# server LOG [SERVE_OPTION...] and peer bare|node LOG [NAME=VALUE...]: start_server and start_peer on SERVER_CPU,
# with BENCH_JVM_FLAGS; SERVER_PID and SERVER_URL.
server() { local log=$1; shift; start_server "$log" "${SERVER_CPU[@]}" "${JVM_OPTS[@]}" "$@"; }
peer() { local kind=$1 log=$2; shift 2; start_peer "$kind" "$log" "${SERVER_CPU[@]}" "${JVM_OPTS[@]}" "$@"; }
# loan_load LOAD_OPTION...: the project's load client on CLIENT_CPU.
loan_load() { "${CLIENT_CPU[@]}" "$JAVA" -jar "$JAR" load "$@"; }
# wrk_threads: one wrk thread per CPU the client has.
wrk_threads() { if [ ${#CLIENT_CPU[@]} -gt 0 ]; then echo 1; else echo 2; fi; }
# load_errors FILE: the errors of a load --json FILE as load prints them ("none", "status 503=2 timeout=1"), or "-".
load_errors() {
  json_get "$1" '.errors | if length == 0 then "none" else to_entries | map("\(.key)=\(.value)") | join(" ") end'
}
section() { echo; echo "=== $* ==="; }
skip() { echo "skipped: $*"; }

# ratios KEY A B: figure KEY, a round for each round of the figures A and B: A's value over B's ("-" where one is
# missing), so that a goal on a ratio stands on every repetition.
ratios() {
  local a b
  paste <(figure_values "$2") <(figure_values "$3") | while IFS=$'\t' read -r a b; do
    figure "$1" "$(calc 'a / b' "${a:--}" "${b:--}")"
  done
}

# The summary: one row per target (TARGET|PROJECT|PEER|PEER_FIGURE|RATIO|GOAL|MET), and the verdicts on the goals
# (CLAIM|KEY|OP|LIMIT), given after it.
ROWS=()
CLAIMS=()
# Goals a figure may come too close to for this machine to call: KEY -> D or P% (verdict_on's within=).
declare -A WITHIN=()
# within KEY BAND: KEY's goal is met or missed only by more than BAND (D or P%), for its verdict and the summary's row.
within() {
  WITHIN[$1]=$2
}
# target TARGET PROJECT PEER PEER_FIGURE RATIO [CLAIM KEY OP LIMIT [CLIENT_KEY]]: a row of the summary (figures:
# medians, "-" when missing); with a goal, CLAIM is the verdict on KEY and the row's "met" its outcome: held, failed or
# inconclusive (the interval of KEY's median straddles the goal; with 3 rounds that interval is their range; or
# CLIENT_KEY, a figure that is 1 in a round whose client was the limit, is 1 in any round).
target() {
  local goal=- met=-
  if [ $# -gt 5 ]; then
    goal="$8 $9"
    met=$(met "$7" "$8" "$9")
    if [ -n "${10:-}" ] && [ "$met" != smoke ] && figure_values "${10}" | grep -q '^1$'; then met=inconclusive; fi
    CLAIMS+=("$6|$7|$8|$9|${10:-}")
  fi
  ROWS+=("$1|$2|$3|$4|$5|$goal|$met")
}
# pairs_interval KEY: KEY's values (one per interleaved pair) as "MEDIAN [LOW, HIGH]", the 95% bootstrap interval of
# their median; "-" when none was measured.
pairs_interval() {
  local values med low high n
  mapfile -t values < <(figure_values "$1")
  read -r med low high n < <(loan_runtime interval "${values[@]}")
  if [ "$n" -eq 0 ]; then echo -; else echo "$(calc a "$med") [$(calc a "$low"), $(calc a "$high")]"; fi
}
# Keys whose verdict stands on interleaved pairs: the interval of their median decides it (verdict_interval)
INTERVAL_KEYS=" books.cpu-ratio.vs-node books.cpu-ratio.vs-bare "
# met KEY OP LIMIT: held | failed | inconclusive, from the 95% bootstrap interval of KEY's median; n/a (no value);
# smoke (no verdicts in --smoke)
met() {
  local values outcome
  mapfile -t values < <(figure_values "$1")
  [ "$MODE" = smoke ] && { echo smoke; return; }
  if [ -n "${WITHIN[$1]:-}" ]; then
    # shellcheck disable=SC2046 # three numbers
    within_outcome $(within_counts "$1" "$2" "$3" "${WITHIN[$1]}")
    return
  fi
  outcome=$(loan_runtime interval --goal "$2 $3" "${values[@]}" | awk '{ print $4 == 0 ? "n/a" : $5 }')
  if [[ $INTERVAL_KEYS == *" $1 "* ]] && [ "${#values[@]}" -gt 0 ] && [ "${#values[@]}" -lt "$MIN_PAIRS" ]; then
    outcome=inconclusive
  fi
  echo "$outcome"
}

# --- configuration -------------------------------------------------------------------------------------------------
echo "mode:    $MODE (repetitions $REPS, wrk warm-up ${WARM_S}s, timed runs ${DUR_S}s, open-loop rate ${RATE}/s)"
setting mode "$MODE"
setting repetitions "$REPS"
setting warm-up-seconds "$WARM_S"
setting run-seconds "$DUR_S"
setting open-loop-rate "$RATE"
setting scrypt-rounds "$SCRYPT_ROUNDS"
setting scrypt-single-runs "$SCRYPT_SINGLE"
setting scrypt-requests-per-client "$SCRYPT_PER_CLIENT"
setting wait-levels "${WAIT_LEVELS[*]}"
setting wait-seconds "$WAIT_S"
setting jvm-flags "${JVM_FLAGS[*]:-none}"
setting pinned "$CAN_PIN"
echo "jvm flags: ${JVM_FLAGS[*]:-(none, as 'java -jar target/loan-runtime.jar')}"
if $HAVE_NODE; then echo "node:    $(command -v node) $(node --version)"; else echo "node:    missing: the Node.js peer is skipped"; fi
if $HAVE_WRK; then echo "wrk:     $WRK_VERSION"; else echo "wrk:     missing: the wrk throughput figures are skipped"; fi
# 10,000 connections need as many descriptors on each side
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 25000 ]; then ulimit -n "$(ulimit -Hn)" 2>/dev/null || true; fi
echo "ulimit -n: $(ulimit -n) (somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?))"
if $CAN_PIN; then
  echo "pinning: figures 1, 2 and 5 run servers on CPU 0 (taskset -c 0) and clients on CPU 1 (taskset -c 1)"
else
  echo "pinning: none (BENCH_PIN=${BENCH_PIN:-true}, nproc $CORES)"
fi

source experiments/bench/1-books.sh
source experiments/bench/2-heavy.sh
source experiments/bench/3-scrypt.sh
source experiments/bench/4-start.sh
source experiments/bench/5-waits.sh

# --- summary -------------------------------------------------------------------------------------------------------
section "summary ($MODE; $(date -u +%Y-%m-%d), nproc $CORES, $("$JAVA" -version 2>&1 | head -1 | cut -d'"' -f2), node $($HAVE_NODE && node --version || echo -))"
table summary "every target: the project's figure and the peer's (medians over the repetitions), the median of the \
repetitions' ratios (figure 1: of the interleaved pairs' ratios, with its 95% bootstrap interval), the goal, and \
whether the interval met it" target project peer "peer figure" ratio goal met
for line in "${ROWS[@]}"; do
  IFS='|' read -r -a cells <<< "$line"
  table_row "${cells[@]}"
done
table_end
for claim in "${CLAIMS[@]}"; do
  IFS='|' read -r text key op limit client <<< "$claim"
  if [ "$MODE" = smoke ]; then
    verdict "$text" "median of $key $op $limit" "not measured: --smoke"
  elif [[ $INTERVAL_KEYS == *" $key "* ]]; then
    verdict_interval "$text" "$key" "$op" "$limit"
  else
    verdict_on "$text" "$key" "$op" "$limit" ${client:+"client=$client"} ${WITHIN[$key]:+"within=${WITHIN[$key]}"}
  fi
done
end_experiment
