#!/usr/bin/env bash
# Faults under steady load against `cluster --workers 3`:
#  (a) one worker is SIGKILLed, once a warm spare stands by, ROUNDS times: requests that failed, and how long until
#      a new pid answers;
#  (b0) the mechanism: connections queued on a SO_REUSEPORT listener that closes (ReusePortQueue.java), ROUNDS times;
#  (b) rolling restarts (SIGHUP): requests that failed (goal 0 with tcp_migrate_req=1), and how long each restart and
#      each of its steps (a standby's promotion, then the old worker's drain and graceful stop, up to its stopped line;
#      the standbys start together first) took;
#      with the kernel's net.ipv4.tcp_migrate_req off and on, alternating in one cluster, when this machine lets us
#      switch it (root, Linux >= 5.14), ROLLS times each;
#  (d) SIGTERM to the primary of a fresh cluster under load, ROUNDS times per condition: requests that reached it and
#      got no answer (goal 0 beyond what the last listener had queued; those refused once it is gone were never
#      accepted), and how long it took to stop;
#  (c) the primary is SIGKILLed, at the end of (a)'s and of (b)'s cluster, then of fresh ones up to ROUNDS in all:
#      how long until none of its workers and spares is left.
# The load is CLIENTS curl processes, each requesting /books on a new connection per request (bounded count), started
# afresh for each round, so each round counts its own requests; in (b), CLIENTS more on kept-alive connections.
# Settings (environment): WORKERS (3, --short 2), CLIENTS (2), ROUNDS (3, --short 1), ROLLS (3, --short 1),
# LOAD_MAX (200000), PORT (a free one unless set).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
WORKERS=${WORKERS:-$(full_or_short 3 2)}
CLIENTS=${CLIENTS:-2}
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
ROLLS=${ROLLS:-$(full_or_short 3 1)}
LOAD_MAX=${LOAD_MAX:-200000}
SETTLE_S=$(full_or_short 2 1)   # load before and after each fault
DRAIN_MS=4000                   # serve's --drain-delay, left at its default
PORT=${PORT:-$(free_port)}
MIGRATE=/proc/sys/net/ipv4/tcp_migrate_req
ORIGINAL_MIGRATE=$(cat "$MIGRATE" 2>/dev/null || echo "")
require_free_port "$PORT"

# set_migrate VALUE: writes VALUE to tcp_migrate_req (nothing for an empty VALUE); the original value comes back at
# exit, whatever happens.
set_migrate() {
  if [ -n "$1" ]; then echo "$1" >"$MIGRATE"; fi
}
restore_migrate() {
  if [ -n "$ORIGINAL_MIGRATE" ]; then echo "$ORIGINAL_MIGRATE" >"$MIGRATE" 2>/dev/null || true; fi
}
on_exit restore_migrate

# The conditions, "LABEL VALUE": tcp_migrate_req off and on when we may switch it, else the machine's own setting.
if [ -n "$ORIGINAL_MIGRATE" ] && [ -w "$MIGRATE" ]; then
  CONDITIONS=("migrate-off 0" "migrate-on 1")
else
  CONDITIONS=("migrate-${ORIGINAL_MIGRATE:-absent} ")
fi

question="Under steady load, what do a worker's SIGKILL, rolling restarts, the cluster's SIGTERM and the primary's"
begin_experiment 06-cluster-faults "$question SIGKILL cost a cluster?"
echo "port:    $PORT"
echo "workers: $WORKERS, load: $CLIENTS curl clients on /books, a new connection per request"
echo "rounds:  $ROUNDS worker kills, $ROUNDS closing listeners per condition, $ROLLS rolling restarts per condition"
echo "tcp_migrate_req: ${ORIGINAL_MIGRATE:-absent}; conditions: ${CONDITIONS[*]}"
setting workers "$WORKERS"
setting clients "$CLIENTS"
setting rounds "$ROUNDS"
setting rolls "$ROLLS"
setting settle-seconds "$SETTLE_S"
setting tcp_migrate_req "${ORIGINAL_MIGRATE:-absent}"
echo

URL=http://127.0.0.1:$PORT
FAILURES=()   # "PHASE|ROUND|the failed requests by kind"

# under_load PREFIX PHASE ROUND CMD...: starts the curl load, runs CMD SETTLE_S later, stops the load SETTLE_S after it
# returned (a failure the fault causes late still counts); sets LOAD_OK and LOAD_FAILED, the requests answered 200
# and the others. With KEPT=1, CLIENTS more curl clients on kept-alive connections run beside them (PREFIX-kept):
# KEPT_OK and KEPT_FAILED.
KEPT=0
under_load() {
  local prefix=$1 phase=$2 round=$3
  shift 3
  start_curl_load "$prefix" "$CLIENTS" "$URL/books"
  [ "$KEPT" = 0 ] || start_curl_load "$prefix-kept" "$CLIENTS" "$URL/books" "" keep-alive
  sleep "$SETTLE_S"
  "$@"
  sleep "$SETTLE_S"
  stop_curl_load
  read -r LOAD_OK LOAD_FAILED < <(load_counts "$prefix")
  FAILURES+=("$phase|$round|$(load_failures "$prefix")")
  if [ "$KEPT" = 1 ]; then
    read -r KEPT_OK KEPT_FAILED < <(load_counts "$prefix-kept")
    FAILURES+=("$phase, kept-alive|$round|$(load_failures "$prefix-kept")")
  fi
}

# kill_primary WHEN: SIGKILL to the primary (the load stopped): figures of how long until none of its children (its
# workers and spares) runs, and how many still ran after 30 s.
kill_primary() {
  local orphans t0 gone left
  orphans=$(pgrep -P "$PRIMARY" || true)
  t0=$(now_ms)
  stop_pid "$PRIMARY" KILL
  PRIMARY=""
  # shellcheck disable=SC2086 # one pid a word
  while [ -n "$(running_pids $orphans)" ] && [ $(($(now_ms) - t0)) -lt 30000 ]; do sleep 0.02; done
  gone=$(($(now_ms) - t0))
  # shellcheck disable=SC2086 # one pid a word
  left=$(running_pids $orphans | wc -l)
  figure orphans.gone-ms "$gone" ms "the primary's SIGKILL -> none of its workers and spares runs"
  figure orphans.left "$left" processes "workers and spares still running 30 s after the primary's SIGKILL"
  echo "  (c) $1: SIGKILL of the primary: $left of $(wc -w <<<"$orphans") workers and spares left after $gone ms"
  kill_logged_pids "$CLUSTER_LOG"   # any left would hold the port the next cluster binds
}

# --- (a) a worker is SIGKILLed -------------------------------------------------------------------------------
# kill_worker: SIGKILL to the worker that answers /status; a figure of the ms until a pid not seen before answers.
kill_worker() {
  local victim ms
  victim=$(curl -sS "$URL/status" | json_pid)
  worker_pids | grep -qx "$victim" || { echo "pid $victim is not a worker of primary $PRIMARY" >&2; exit 1; }
  # shellcheck disable=SC2046 # one pid a word
  ms=$(replacement_ms "$URL/status" "$victim" $(worker_pids)) || ms=-
  figure kill.replaced-ms "$ms" ms "a worker's SIGKILL -> a new pid answers"
  KILLED="pid $victim, a new pid answered after $ms ms"
}
echo "--- (a) SIGKILL of a worker, once a spare stands by ---"
start_cluster "$OUT/a-cluster.log" --workers "$WORKERS" --port "$PORT"
for round in $(seq "$ROUNDS"); do
  # the cluster's steady state: a warm spare stands by (one more each round: the last one was promoted)
  await_line "$CLUSTER_LOG" "$LINE_STANDING_BY" "$PRIMARY" "$round"
  under_load "$OUT/a-load-$round" "worker SIGKILL" "$round" kill_worker
  figure kill.ok "$LOAD_OK" requests "requests answered 200 in a worker-kill round"
  figure kill.failed "$LOAD_FAILED" requests "requests failed in a worker-kill round"
  echo "  round $round: $KILLED; $LOAD_OK ok, $LOAD_FAILED failed"
done
kill_primary "after (a)"

# --- (b0) the mechanism: connections queued on a SO_REUSEPORT listener that closes ---------------------------
echo "--- (b0) a closing SO_REUSEPORT listener's queue ---"
"$JAVA_HOME/bin/javac" -d "$OUT/classes" experiments/ReusePortQueue.java
value() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }   # NAME LINE: NAME=VALUE's value in LINE
for round in $(seq "$ROUNDS"); do
  for condition in "${CONDITIONS[@]}"; do
    read -r label migrate <<<"$condition"
    set_migrate "$migrate"
    line=$("$JAVA" -cp "$OUT/classes" ReusePortQueue 200)
    echo "  round $round: $line" | tee -a "$OUT/b0-queue.txt"
    queued=$(value queued-on-closing-listener "$line")
    reset=$(value reset "$line")
    figure "listener.queued.$label" "$queued" connections "connections queued on the closing listener, $label"
    figure "listener.reset.$label" "$reset" connections "queued connections reset, $label"
    figure "listener.answered.$label" "$(value answered "$line")" connections "connections answered (of 200), $label"
    figure "listener.reset-share.$label" "$(calc 'a / b' "$reset" "$queued")" "" "reset / queued, $label"
  done
done
restore_migrate

# --- (b) rolling restarts, tcp_migrate_req off and on ------------------------------------------------------
# roll LABEL: one rolling restart (SIGHUP to the primary), up to its "rolling restart done" line: a figure of its
# duration, and one per step, as each "replaced" line gives it (the promotion, the old worker's drain and its stop).
roll() {
  local label=$1 done_before finished=false steps n t0 standbys deadline=$((SECONDS + 300))
  standbys=$(standby_ms "$CLUSTER_LOG" | wc -l)
  done_before=$(restarts_done "$CLUSTER_LOG")
  steps=$(restart_steps "$CLUSTER_LOG")
  t0=$(now_ms)
  kill -HUP "$PRIMARY"
  while :; do
    # "done" first: the primary writes it after the last step's line, so the count below sees that step too
    [ "$(restarts_done "$CLUSTER_LOG")" -le "$done_before" ] || finished=true
    n=$(restart_steps "$CLUSTER_LOG")
    while [ "$n" -gt "$steps" ]; do
      steps=$((steps + 1))
      figure "roll.step-ms.$label" "$(step_ms "$CLUSTER_LOG" "$steps")" ms \
        "one step of a rolling restart (a standby promoted, the old worker drained and gone), $label"
    done
    $finished && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "rolling restart did not finish within 300 s" >&2
      exit 1
    fi
    sleep 0.1
  done
  figure "roll.ms.$label" $(($(now_ms) - t0)) ms "one rolling restart of every worker, $label"
  # the replacements start together, before the first step: the restart's time is mostly theirs
  figure "roll.standby-ms.$label" "$(standby_ms "$CLUSTER_LOG" | tail -n +$((standbys + 1)) | head -"$WORKERS" \
    | sort -n | tail -1)" ms "the replacements' start, until the last stood by (start to warm, under load), $label"
}
echo "--- (b) rolling restarts under load ---"
start_cluster "$OUT/b-cluster.log" --workers "$WORKERS" --port "$PORT"
for round in $(seq "$ROLLS"); do
  for condition in "${CONDITIONS[@]}"; do
    read -r label migrate <<<"$condition"
    set_migrate "$migrate"
    KEPT=1 under_load "$OUT/b-load-$label-$round" "rolling restart, $label" "$round" roll "$label"
    figure "roll.ok.$label" "$LOAD_OK" requests "requests answered 200 in a rolling restart, $label"
    figure "roll.failed.$label" "$LOAD_FAILED" requests "requests failed in a rolling restart, $label"
    figure "roll.kept-ok.$label" "$KEPT_OK" requests \
      "requests on kept-alive connections answered 200 in a rolling restart, $label"
    figure "roll.kept-failed.$label" "$KEPT_FAILED" requests \
      "requests on kept-alive connections failed in a rolling restart, $label"
    echo "  round $round, $label: the restart took $(figure_values "roll.ms.$label" | tail -1) ms (steps:" \
      "$(figure_values "roll.step-ms.$label" | tail -"$WORKERS" | paste -sd' ') ms); new connections: $LOAD_OK ok," \
      "$LOAD_FAILED failed; kept-alive: $KEPT_OK ok, $KEPT_FAILED failed"
  done
done
restore_migrate
kill_primary "after (b)"

# --- (d) SIGTERM of the whole cluster under load ----------------------------------------------------------
# stop_whole_cluster: SIGTERM to the primary, which has every worker drain and stop; a figure of the time to its exit.
# The load goes on after it: those requests are refused (curl exit 7), never accepted.
stop_whole_cluster() {
  local t0
  t0=$(now_ms)
  stop_pid "$PRIMARY" TERM 60
  PRIMARY=""
  figure "stop.ms.$1" $(($(now_ms) - t0)) ms "the cluster's SIGTERM -> its primary exited, $1"
}
echo "--- (d) SIGTERM of the whole cluster under load ---"
for round in $(seq "$ROUNDS"); do
  for condition in "${CONDITIONS[@]}"; do
    read -r label migrate <<<"$condition"
    set_migrate "$migrate"
    start_cluster "$OUT/d-cluster-$label-$round.log" --workers "$WORKERS" --port "$PORT"
    unmigrated=$(tcp_counter TCPMigrateReqFailure)
    KEPT=1 under_load "$OUT/d-load-$label-$round" "cluster SIGTERM, $label" "$round" stop_whole_cluster "$label"
    unmigrated=$(($(tcp_counter TCPMigrateReqFailure) - unmigrated))
    figure "stop.ok.$label" $((LOAD_OK + KEPT_OK)) requests \
      "requests answered 200 in a cluster-SIGTERM round, both loads, $label"
    lost=$(($(lost_count "$OUT/d-load-$label-$round") + $(lost_count "$OUT/d-load-$label-$round-kept")))
    figure "stop.lost.$label" "$lost" requests \
      "requests that reached the cluster and got no answer (failed other than refused, curl exit 7), both loads, $label"
    echo "  round $round, $label: the cluster stopped $(figure_values "stop.ms.$label" | tail -1) ms after SIGTERM;" \
      "$((LOAD_OK + KEPT_OK)) answered, $lost lost (refused afterwards: not counted);" \
      "the kernel reset $unmigrated queued connections that no listener was left to take"
    if [ "$migrate" = 1 ]; then
      # With 1 the kernel counts what it reset: the connections queued on the last listener to close, which no
      # worker had accepted. What is lost beyond them is what a worker accepted and did not answer.
      figure "stop.unmigrated.$label" "$unmigrated" connections \
        "connections queued on the last listener to close, reset by the kernel (TCPMigrateReqFailure), $label"
      figure "stop.lost-accepted.$label" $((lost - unmigrated)) requests \
        "lost requests beyond the kernel's resets: accepted by a worker and not answered, $label"
    fi
  done
done
restore_migrate

# --- (c) the primary is SIGKILLed: more clusters, up to ROUNDS in all ----------------------------------------
while [ "$(figure_values orphans.gone-ms | wc -l)" -lt "$ROUNDS" ]; do
  start_cluster "$OUT/c-cluster-$(figure_values orphans.gone-ms | wc -l).log" --workers "$WORKERS" --port "$PORT"
  await_line "$CLUSTER_LOG" "$LINE_STANDING_BY" "$PRIMARY"
  kill_primary "a cluster of its own"
done
echo

# --- results -----------------------------------------------------------------------------------------------
total() { figure_values "$1" | awk '{ s += $1 } END { print s + 0 }'; }   # KEY: the sum of its rounds
table faults "faults under load (ok, failed: requests over all rounds; ms: medians)" \
  fault rounds "requests ok" failed "median ms" "time measured" "step median ms" "standbys warm, median ms"
table_row "SIGKILL one worker" "$ROUNDS" "$(total kill.ok)" "$(total kill.failed)" "$(figure_median kill.replaced-ms)" \
  "until a new pid answers" - -
for condition in "${CONDITIONS[@]}"; do
  read -r label _ <<<"$condition"
  table_row "rolling restart, $label" "$ROLLS" "$(total "roll.ok.$label")" "$(total "roll.failed.$label")" \
    "$(figure_median "roll.ms.$label")" "one restart of $WORKERS workers" "$(figure_median "roll.step-ms.$label")" \
    "$(figure_median "roll.standby-ms.$label")"
  table_row "the same, kept-alive clients" "$ROLLS" "$(total "roll.kept-ok.$label")" \
    "$(total "roll.kept-failed.$label")" - - - -
done
for condition in "${CONDITIONS[@]}"; do
  read -r label _ <<<"$condition"
  table_row "SIGTERM the cluster, $label" "$ROUNDS" "$(total "stop.ok.$label")" "$(total "stop.lost.$label")" \
    "$(figure_median "stop.ms.$label")" "until the primary exits (failed: not refused)" - -
done
table_row "SIGKILL the primary" "$(figure_values orphans.gone-ms | wc -l)" - - "$(figure_median orphans.gone-ms)" \
  "until no worker or spare runs" - -
table_end

table listener "a closing SO_REUSEPORT listener, 200 connections (medians of $ROUNDS rounds)" \
  condition tcp_migrate_req queued reset answered
for condition in "${CONDITIONS[@]}"; do
  read -r label migrate <<<"$condition"
  table_row "$label" "${migrate:-${ORIGINAL_MIGRATE:-absent}}" "$(figure_median "listener.queued.$label")" \
    "$(figure_median "listener.reset.$label")" "$(figure_median "listener.answered.$label")"
done
table_end

table failures "the failed requests by status and curl exit code (000: no response; 52 empty reply, 56 reset)" \
  phase round "failed requests"
for row in "${FAILURES[@]}"; do
  IFS='|' read -r phase round failed <<<"$row"
  table_row "$phase" "$round" "$failed"
done
table_end

verdict_on "a killed worker is replaced" kill.replaced-ms '<' 120000 all
for condition in "${CONDITIONS[@]}"; do
  read -r label migrate <<<"$condition"
  if [ "${migrate:-$ORIGINAL_MIGRATE}" = 1 ]; then
    verdict_on "with tcp_migrate_req=1 the kernel hands a closing listener's queue to its siblings" \
      "listener.reset.$label" '==' 0
  else
    verdict_on "with tcp_migrate_req=${migrate:-${ORIGINAL_MIGRATE:-absent}} closing a SO_REUSEPORT listener resets its queue" \
      "listener.reset-share.$label" '==' 1
  fi
done
# With tcp_migrate_req=0 the kernel resets what a closing listener had queued (the cluster says so at start): no design
# of separate SO_REUSEPORT listeners can promise zero new connections lost then, so the count is shown, not judged.
for condition in "${CONDITIONS[@]}"; do
  read -r label migrate <<<"$condition"
  if [ "${migrate:-$ORIGINAL_MIGRATE}" = 1 ]; then
    verdict_on "rolling restart loses no request ($label)" "roll.failed.$label" '==' 0 all
  fi
  verdict_on "rolling restart loses no request on kept-alive connections ($label)" "roll.kept-failed.$label" '==' 0 all
  verdict_on "rolling restart: a step takes at most the drain delay plus 1 s ($label)" "roll.step-ms.$label" '<=' \
    $((DRAIN_MS + 1000))
done
# The whole cluster's SIGTERM: the last listener to close has no sibling to hand its queue to, with either setting;
# what the workers accepted is the claim, and the kernel counts its resets only with 1.
for condition in "${CONDITIONS[@]}"; do
  read -r label migrate <<<"$condition"
  if [ "$migrate" = 1 ]; then
    verdict_on "SIGTERM of the whole cluster: nothing a worker accepted is lost, only what the last listener had queued ($label)" \
      "stop.lost-accepted.$label" '==' 0 all
  fi
done
verdict_on "orphans exit within 2 s of the primary's SIGKILL" orphans.gone-ms '<=' 2000
end_experiment
