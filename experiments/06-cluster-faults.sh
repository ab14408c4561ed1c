#!/usr/bin/env bash
# Faults under steady load against `cluster --workers 3`:
#  (a) one worker is SIGKILLed: requests that failed, and how long until its replacement answers;
#  (b) rolling restarts (SIGHUP): requests that failed (goal 0), with the kernel's net.ipv4.tcp_migrate_req off
#      and on, when this machine lets us switch it (root, Linux >= 5.14);
#  (c) the primary is SIGKILLed: how long until no worker is left.
# The load is CLIENTS curl processes, each requesting /books on a new connection per request (bounded count).
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=06-cluster-faults
source experiments/lib/cluster.sh

WORKERS=${WORKERS:-3}
CLIENTS=${CLIENTS:-2}
ROLLS=${ROLLS:-3}
LOAD_MAX=${LOAD_MAX:-200000}
PORT=${PORT:-$(free_port)}
MIGRATE=/proc/sys/net/ipv4/tcp_migrate_req
ORIGINAL_MIGRATE=$(cat "$MIGRATE" 2>/dev/null || echo "")

restore() {
  cleanup_all
  if [ -n "$ORIGINAL_MIGRATE" ]; then echo "$ORIGINAL_MIGRATE" >"$MIGRATE" 2>/dev/null || true; fi
}
trap restore EXIT

build_once
if port_in_use "$PORT"; then echo "port $PORT is in use; set PORT to a free one" >&2; exit 1; fi
print_config
echo "workers: $WORKERS, load: $CLIENTS curl clients on /books, a new connection per request"
echo "tcp_migrate_req: ${ORIGINAL_MIGRATE:-absent}"
echo

elapsed_ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# --- (a) a worker is SIGKILLed -------------------------------------------------------------------------------
start_cluster "$OUT/a-cluster.log" --workers "$WORKERS" --port "$PORT"
start_load "$OUT/a-load" "$CLIENTS" /books
sleep 2
before=$(worker_pids)
victim=$(curl -sS "http://127.0.0.1:$PORT/status" | json_pid)
grep -qx "$victim" <<<"$before" || { echo "pid $victim is not a worker of primary $PRIMARY" >&2; exit 1; }
t0=$(date +%s%N)
kill -KILL "$victim"
replaced_ms=""
while [ -z "$replaced_ms" ] && [ "$(elapsed_ms "$t0")" -lt 120000 ]; do
  pid=$(curl -s --max-time 2 "http://127.0.0.1:$PORT/status" | json_pid || true)
  if [ -n "$pid" ] && ! grep -qx "$pid" <<<"$before"; then replaced_ms=$(elapsed_ms "$t0"); fi
done
sleep 2
stop_load
read -r a_ok a_failed < <(load_counts "$OUT/a-load")
echo "failed requests, worker SIGKILL: $(load_failures "$OUT/a-load")" >"$OUT/failures.txt"
stop_cluster

# --- (b0) the mechanism: connections queued on a SO_REUSEPORT listener that closes ---------------------------
queue_phase() { # migrate-value
  if [ -n "$1" ]; then echo "$1" >"$MIGRATE"; fi
  "$JAVA" experiments/ReusePortQueue.java 200 | tee -a "$OUT/b0-queue.txt"
}
: >"$OUT/b0-queue.txt"
if [ -n "$ORIGINAL_MIGRATE" ] && [ -w "$MIGRATE" ]; then
  queue_phase 0 && queue_phase 1
  echo "$ORIGINAL_MIGRATE" >"$MIGRATE"
else
  queue_phase ""
fi

# --- (b) rolling restarts, tcp_migrate_req off and on ------------------------------------------------------
roll_phase() { # label migrate-value
  local label="$1" value="$2" i
  if [ -n "$value" ]; then echo "$value" >"$MIGRATE"; fi
  start_cluster "$OUT/b-$label-cluster.log" --workers "$WORKERS" --port "$PORT"
  start_load "$OUT/b-$label-load" "$CLIENTS" /books
  sleep 2
  local roll_ms=()
  for i in $(seq "$ROLLS"); do
    local done_before t
    done_before=$(grep -c "^rolling restart done" "$OUT/b-$label-cluster.log" || true)
    t=$(date +%s%N)
    kill -HUP "$PRIMARY"
    until [ "$(grep -c "^rolling restart done" "$OUT/b-$label-cluster.log" || true)" -gt "$done_before" ]; do
      if [ "$(elapsed_ms "$t")" -gt 300000 ]; then echo "rolling restart did not finish" >&2; exit 1; fi
      sleep 0.1
    done
    roll_ms+=("$(elapsed_ms "$t")")
  done
  sleep 2
  stop_load
  stop_cluster
  local ok failed
  read -r ok failed < <(load_counts "$OUT/b-$label-load")
  printf '%s %s %s %s\n' "$label" "$ok" "$failed" "${roll_ms[*]}" >>"$OUT/b-results.txt"
  echo "failed requests, $label: $(load_failures "$OUT/b-$label-load")" >>"$OUT/failures.txt"
}
: >"$OUT/b-results.txt"
if [ -n "$ORIGINAL_MIGRATE" ] && [ -w "$MIGRATE" ]; then
  roll_phase migrate-off 0
  roll_phase migrate-on 1
  echo "$ORIGINAL_MIGRATE" >"$MIGRATE"
else
  roll_phase "migrate-${ORIGINAL_MIGRATE:-absent}" ""
fi

# --- (c) the primary is SIGKILLed ----------------------------------------------------------------------------
start_cluster "$OUT/c-cluster.log" --workers "$WORKERS" --port "$PORT"
orphans=$(worker_pids)
t0=$(date +%s%N)
kill -KILL "$PRIMARY"
wait "$PRIMARY" 2>/dev/null || true
PRIMARY=""
# shellcheck disable=SC2086
while [ -n "$(running_pids $orphans)" ] && [ "$(elapsed_ms "$t0")" -lt 30000 ]; do sleep 0.02; done
orphans_gone_ms=$(elapsed_ms "$t0")
# shellcheck disable=SC2086
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

echo "# verdicts"
if [ -n "$replaced_ms" ]; then
  echo "PASS a killed worker is replaced: a new pid answered ${replaced_ms} ms after SIGKILL ($a_failed requests failed: those the dead worker held)"
else
  echo "FAIL a killed worker is replaced: no new pid answered within 120 s"
fi
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }
while read -r line; do
  migrate=$(field tcp_migrate_req "$line"); queued=$(field queued-on-closing-listener "$line"); reset=$(field reset "$line")
  if [ "$migrate" = 1 ]; then
    [ "$reset" -eq 0 ] && v=PASS || v=FAIL
    echo "$v with tcp_migrate_req=1 the kernel hands a closing listener's queue to its siblings: $reset of $queued queued connections reset"
  else
    [ "$queued" -gt 0 ] && [ "$reset" -eq "$queued" ] && v=PASS || v=FAIL
    echo "$v with tcp_migrate_req=$migrate closing a SO_REUSEPORT listener resets its queue: $reset of $queued queued connections reset"
  fi
done <"$OUT/b0-queue.txt"
while read -r label ok failed rolls; do
  if [ "$failed" -eq 0 ]; then
    echo "PASS rolling restart loses no request ($label): 0 of $ok failed over $ROLLS restarts"
  else
    echo "FAIL rolling restart loses no request ($label): $failed of $((ok + failed)) failed over $ROLLS restarts"
  fi
done <"$OUT/b-results.txt"
if [ "$orphans_left" -eq 0 ] && [ "$orphans_gone_ms" -le 2000 ]; then
  echo "PASS orphans exit within 2 s of the primary's SIGKILL: all gone after ${orphans_gone_ms} ms"
else
  echo "FAIL orphans exit within 2 s of the primary's SIGKILL: $orphans_left left after ${orphans_gone_ms} ms"
fi
