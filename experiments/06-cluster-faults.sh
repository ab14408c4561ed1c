#!/usr/bin/env bash
# Faults under steady load against `cluster --workers 3`:
#  (a) one worker is SIGKILLed: requests that failed, and how long until its replacement answers;
#  (b) rolling restarts (SIGHUP): requests that failed (goal 0), with the kernel's net.ipv4.tcp_migrate_req off
#      and on, when this machine lets us switch it (root, Linux >= 5.14);
#  (c) the primary is SIGKILLed: how long until no worker is left.
# The load is CLIENTS curl processes, each requesting /books on a new connection per request (bounded count).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

WORKERS=${WORKERS:-3}
CLIENTS=${CLIENTS:-2}
ROLLS=${ROLLS:-3}
LOAD_MAX=${LOAD_MAX:-200000}
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

begin_experiment 06-cluster-faults
echo "port:    $PORT"
echo "workers: $WORKERS, load: $CLIENTS curl clients on /books, a new connection per request"
echo "tcp_migrate_req: ${ORIGINAL_MIGRATE:-absent}"
echo

URL=http://127.0.0.1:$PORT

# --- (a) a worker is SIGKILLed -------------------------------------------------------------------------------
start_cluster "$OUT/a-cluster.log" --workers "$WORKERS" --port "$PORT"
start_curl_load "$OUT/a-load" "$CLIENTS" "$URL/books"
sleep 2
before=$(worker_pids)
victim=$(curl -sS "$URL/status" | json_pid)
grep -qx "$victim" <<<"$before" || { echo "pid $victim is not a worker of primary $PRIMARY" >&2; exit 1; }
t0=$(now_ms)
kill -KILL "$victim"
replaced_ms=""
while [ -z "$replaced_ms" ] && [ $(($(now_ms) - t0)) -lt 120000 ]; do
  pid=$(curl -s --max-time 2 "$URL/status" | json_pid || true)
  if [ -n "$pid" ] && ! grep -qx "$pid" <<<"$before"; then replaced_ms=$(($(now_ms) - t0)); fi
done
sleep 2
stop_curl_load
read -r a_ok a_failed < <(load_counts "$OUT/a-load")
echo "failed requests, worker SIGKILL: $(load_failures "$OUT/a-load")" >"$OUT/failures.txt"
stop_cluster

# --- (b0) the mechanism: connections queued on a SO_REUSEPORT listener that closes ---------------------------
queue_phase() { # MIGRATE_VALUE
  set_migrate "$1"
  "$JAVA" experiments/ReusePortQueue.java 200 | tee -a "$OUT/b0-queue.txt"
}
: >"$OUT/b0-queue.txt"
if [ -n "$ORIGINAL_MIGRATE" ] && [ -w "$MIGRATE" ]; then
  queue_phase 0 && queue_phase 1
  restore_migrate
else
  queue_phase ""
fi

# --- (b) rolling restarts, tcp_migrate_req off and on ------------------------------------------------------
restarts_done() { grep -c "^rolling restart done" "$1" || true; }   # LOG: how many rolling restarts finished
restarted_since() { [ "$(restarts_done "$1")" -gt "$2" ]; }          # LOG COUNT: more than COUNT finished
roll_phase() { # LABEL MIGRATE_VALUE
  local label=$1 log="$OUT/b-$1-cluster.log" i done_before t roll_ms=() ok failed
  set_migrate "$2"
  start_cluster "$log" --workers "$WORKERS" --port "$PORT"
  start_curl_load "$OUT/b-$label-load" "$CLIENTS" "$URL/books"
  sleep 2
  for i in $(seq "$ROLLS"); do
    done_before=$(restarts_done "$log")
    t=$(now_ms)
    kill -HUP "$PRIMARY"
    if ! wait_until 300 restarted_since "$log" "$done_before"; then
      echo "rolling restart did not finish" >&2
      exit 1
    fi
    roll_ms+=("$(($(now_ms) - t))")
  done
  sleep 2
  stop_curl_load
  stop_cluster
  read -r ok failed < <(load_counts "$OUT/b-$label-load")
  printf '%s %s %s %s\n' "$label" "$ok" "$failed" "${roll_ms[*]}" >>"$OUT/b-results.txt"
  echo "failed requests, $label: $(load_failures "$OUT/b-$label-load")" >>"$OUT/failures.txt"
}
: >"$OUT/b-results.txt"
if [ -n "$ORIGINAL_MIGRATE" ] && [ -w "$MIGRATE" ]; then
  roll_phase migrate-off 0
  roll_phase migrate-on 1
  restore_migrate
else
  roll_phase "migrate-${ORIGINAL_MIGRATE:-absent}" ""
fi

# --- (c) the primary is SIGKILLed ----------------------------------------------------------------------------
start_cluster "$OUT/c-cluster.log" --workers "$WORKERS" --port "$PORT"
orphans=$(worker_pids)
t0=$(now_ms)
stop_pid "$PRIMARY" KILL
PRIMARY=""
# shellcheck disable=SC2086 # one pid a word
while [ -n "$(running_pids $orphans)" ] && [ $(($(now_ms) - t0)) -lt 30000 ]; do sleep 0.02; done
orphans_gone_ms=$(($(now_ms) - t0))
# shellcheck disable=SC2086 # one pid a word
orphans_left=$(running_pids $orphans | wc -l)

# --- results -----------------------------------------------------------------------------------------------
echo "# results"
printf '%-34s %10s %10s %s\n' "phase" "ok" "failed" "detail"
printf '%-34s %10s %10s %s\n' "(a) SIGKILL one worker" "$a_ok" "$a_failed" "replacement answered after ${replaced_ms:-never} ms"
while read -r label ok failed rolls; do
  printf '%-34s %10s %10s %s\n' "(b) $ROLLS rolling restarts, $label" "$ok" "$failed" "each took ms: $rolls"
done <"$OUT/b-results.txt"
printf '%-34s %10s %10s %s\n' "(c) SIGKILL the primary" "-" "-" "$orphans_left of $WORKERS workers left after ${orphans_gone_ms} ms"
while read -r line; do
  printf '%-34s %s\n' "(b0) closing a listener" "$line"
done <"$OUT/b0-queue.txt"

{
  printf '{"workers":%s,"clients":%s,"kernel":"%s","killWorker":{"ok":%s,"failed":%s,"replacementAnsweredMs":%s},' \
    "$WORKERS" "$CLIENTS" "$(uname -r)" "$a_ok" "$a_failed" "${replaced_ms:-null}"
  printf '"rollingRestarts":['
  sep=""
  while read -r label ok failed rolls; do
    printf '%s{"condition":"%s","restarts":%s,"ok":%s,"failed":%s,"durationsMs":[%s]}' "$sep" "$label" "$ROLLS" \
      "$ok" "$failed" "$(tr ' ' ',' <<<"$rolls")"
    sep=","
  done <"$OUT/b-results.txt"
  printf '],"closingListener":['
  sep=""
  while read -r line; do
    # tcp_migrate_req=0 clients=200 ... -> {"tcp_migrate_req":0,"clients":200,...}
    printf '%s{%s}' "$sep" "$(sed 's/=absent/=null/; s/\([a-z_-]*\)=\([^ ]*\)/"\1":\2/g; s/ /,/g' <<<"$line")"
    sep=","
  done <"$OUT/b0-queue.txt"
  printf '],"killPrimary":{"workersLeft":%s,"allGoneMs":%s}}\n' "$orphans_left" "$orphans_gone_ms"
} >"$OUT/results.json"
cat "$OUT/failures.txt"
echo "json: $OUT/results.json"
echo

verdict "a killed worker is replaced: a new pid answered ${replaced_ms:-never} ms after SIGKILL ($a_failed requests failed: those the dead worker held)" \
  "$(truth [ -n "$replaced_ms" ])"
value() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }
while read -r line; do
  migrate=$(value tcp_migrate_req "$line"); queued=$(value queued-on-closing-listener "$line"); reset=$(value reset "$line")
  if [ "$migrate" = 1 ]; then
    verdict "with tcp_migrate_req=1 the kernel hands a closing listener's queue to its siblings: $reset of $queued queued connections reset" \
      "$(truth [ "$reset" -eq 0 ])"
  else
    handed=false
    if [ "$queued" -gt 0 ] && [ "$reset" -eq "$queued" ]; then handed=true; fi
    verdict "with tcp_migrate_req=$migrate closing a SO_REUSEPORT listener resets its queue: $reset of $queued queued connections reset" \
      "$handed"
  fi
done <"$OUT/b0-queue.txt"
while read -r label ok failed rolls; do
  verdict "rolling restart loses no request ($label): $failed of $((ok + failed)) failed over $ROLLS restarts" \
    "$(truth [ "$failed" -eq 0 ])"
done <"$OUT/b-results.txt"
gone=false
if [ "$orphans_left" -eq 0 ] && [ "$orphans_gone_ms" -le 2000 ]; then gone=true; fi
verdict "orphans exit within 2 s of the primary's SIGKILL: $orphans_left left after ${orphans_gone_ms} ms" "$gone"
