#!/usr/bin/env bash
# Side-by-side benchmark: the loan service against two peers, in one run on this machine.
#   - a bare Helidon server (experiments/peers/BareHelidon.java) answering the same bytes from byte arrays: the
#     ceiling for this stack;
#   - a Node.js server (experiments/peers/loan-peer.js): the runtime the lesson measures, single process and
#     cluster.
# Figures, one stage file each under experiments/bench/: 1 /books keep-alive throughput; 2 /books beside a saturated
# crypto pool (throughput, p99); 3 scrypt cost (one derivation, derivations/s with a pool of one thread per core);
# 4 worker start and replacement after kill -9; 5 waiting work at 1,000 and 10,000 concurrent 100 ms waits (Little's
# law, memory). Prints the configuration, one section per figure, then a table: target, project, peer, ratio, goal,
# met. JSON: experiments/results/bench/bench.json.
#
# Usage: experiments/bench.sh [--quick | --smoke]
#   --quick  short runs, one repetition (development)
#   --smoke  every stage once, for seconds; figures printed, no verdicts (CI)
# Needs jq; wrk for throughput and node for the Node.js peer (it skips what needs a missing one and says so).
# BENCH_JVM_FLAGS (space-separated) go to every JVM server, the project's and the bare Helidon peer alike.
# BENCH_PIN=false runs every process on every CPU (by default figures 1 and 2 pin servers and clients apart).
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

source experiments/lib/init.sh
require_tools jq
begin_experiment bench

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
# wrk_median NAME rate|p99: the median over the timed runs $OUT/NAME.N.wrk.
wrk_median() {
  local f
  for f in "$OUT/$1".[0-9]*.wrk; do
    [ -f "$f" ] || continue
    if [ "$2" = rate ]; then wrk_rate "$f"; else wrk_ms "$f" 99%; fi
  done | median
}
# load_errors FILE: the errors of a load --json FILE as load prints them ("none", "status 503=2 timeout=1"), or "-".
load_errors() {
  json_get "$1" '.errors | if length == 0 then "none" else to_entries | map("\(.key)=\(.value)") | join(" ") end'
}
section() { echo; echo "=== $* ==="; }
skip() { echo "skipped: $*"; }

# Results: every target is one row of the table; every figure goes to bench.json. A missing figure is "-".
ROWS=()
FIGURES=()
figure() { FIGURES+=("$1=$2"); }   # figure KEY VALUE
row() { ROWS+=("$1|$2|$3|$4|$5|$6|$7"); }   # row TARGET PROJECT PEER_LABEL PEER RATIO GOAL MET
# met VALUE OP LIMIT: yes | no | n/a (missing figure) | smoke (no verdicts in --smoke)
met() {
  num "$1" || { echo n/a; return; }
  [ "$MODE" = smoke ] && { echo smoke; return; }
  if holds "$1" "$2" "$3"; then echo yes; else echo no; fi
}

# --- configuration -------------------------------------------------------------------------------------------------
echo "mode:    $MODE (repetitions $REPS, wrk warm-up ${WARM_S}s, timed runs ${DUR_S}s, open-loop rate ${RATE}/s)"
echo "jvm flags: ${JVM_FLAGS[*]:-(none, as 'java -jar target/loan-runtime.jar')}"
if $HAVE_NODE; then echo "node:    $(command -v node) $(node --version)"; else echo "node:    missing: the Node.js peer is skipped"; fi
if $HAVE_WRK; then echo "wrk:     $WRK_VERSION"; else echo "wrk:     missing: the wrk throughput figures are skipped"; fi
# 10,000 connections need as many descriptors on each side
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 25000 ]; then ulimit -n "$(ulimit -Hn)" 2>/dev/null || true; fi
echo "ulimit -n: $(ulimit -n) (somaxconn $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo ?))"
if $CAN_PIN; then
  echo "pinning: figures 1 and 2 run servers on CPU 0 (taskset -c 0) and clients on CPU 1 (taskset -c 1)"
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
