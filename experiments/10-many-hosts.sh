#!/usr/bin/env bash
# Many hosts behind a real load balancer, with one shared Redis that survives its own failure. Three "hosts" are
# loopback addresses (127.0.0.2, .3, .4), each running `cluster --workers 2 --spares 0` on the same port, the way
# separate machines share one; HAProxy (deploy/haproxy.cfg, its addresses from the environment) on 127.0.0.1; Redis
# (a master, a replica, three Sentinels, all with passwords) on 127.0.0.1. Every packet stays on 127.0.0.0/8.
# Phases, each under a steady load of curl clients (a new connection per request, every answer kept):
#  1. LOANS (900) loans through the balancer: as many distinct counts, the exact total, spread over the hosts;
#  2. a login, then 30 session checks through the balancer: all valid, whichever host answers;
#  3. a host SIGKILLed (its primary), hung (SIGSTOP, SIGCONT), stopped with SIGTERM with the default drain and with
#     --drain-delay 0: requests lost in each case, and how long the balancer took to mark the host down and up;
#  4. a rolling restart (SIGHUP) of the hosts ROLL_HOSTS ("2 3 4"; none when empty), one after the other: failed
#     requests (the goal is 0);
#  5. the Redis master SIGKILLed: failover time, loans acknowledged and lost, beside a server with --store-replicas 0;
#  6. both Redis data nodes hung: a balancer checking the drain check against one checking readiness.
# After every phase that sends loans, the ledger: the counter minus the acknowledged loans is >= 0 and <= the
# failed loan requests. Sized for 2 cores: 10 small JVMs (HEAP). Takes about 5 minutes on 2 CPUs. Each phase runs
# once: every verdict stands on one run. --short: 180 loans in phase 1 and no rolling restart (ROLL_HOSTS=2 adds
# one of host2, about 35 s), to fit in 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools haproxy redis-server redis-sentinel redis-cli curl
PORT=${PORT:-$(free_port)}
CLIENTS=${CLIENTS:-4}
HEAP=${HEAP:--Xmx192m -XX:+UseSerialGC}
LOANS=${LOANS:-$(full_or_short 900 180)}
ROLL_HOSTS=${ROLL_HOSTS-$(full_or_short "2 3 4" "")}
[ $((LOANS % 6)) -eq 0 ] || { echo "LOANS=$LOANS: phase 1 sends them from 6 clients, so a multiple of 6" >&2; exit 2; }
ROLL_NAMES=${ROLL_HOSTS:+host${ROLL_HOSTS// /, host}}
BASIS=$(full_or_short "one run" "one run; short run")
DATA_PW=data-pw-$RANDOM$RANDOM
SENTINEL_PW=sentinel-pw-$RANDOM$RANDOM
MASTER_NAME=loans
KEY=loan-runtime:loans

begin_experiment 10-many-hosts "Behind a load balancer, with a Redis that fails over, what do a host's faults, a \
rolling restart and the store's faults cost in requests and loans?"
START_S=$SECONDS
echo "hosts:   127.0.0.2-4:$PORT, each cluster --workers 2 --spares 0; JAVA_TOOL_OPTIONS=$HEAP"
echo "clients: $CLIENTS curl clients, a new connection per request; $LOANS loans in phase 1; rolling restart of" \
  "${ROLL_NAMES:-no host}"
echo
setting clients "$CLIENTS"
setting heap "$HEAP"
setting loans "$LOANS"
setting rolling-restart-hosts "${ROLL_HOSTS:-none}"

# --- Redis: a master, a replica, three Sentinels --------------------------------------------------------------
counter() { # DB: the loan counter on the current master
  local v
  v=$(redis_cli "$(sentinel_master_port)" -n "$1" get "$KEY")
  echo "${v:-0}"
}

start_redis_failover "$OUT" "$MASTER_NAME" "$DATA_PW" "$SENTINEL_PW"
STORE=$SENTINEL_STORE
echo "redis:   master :$REDIS_MASTER_PORT, replica :$REDIS_REPLICA_PORT, Sentinels :${SENTINEL_PORTS[*]} (requirepass)"
echo "store:   $STORE (password in LOAN_STORE_PASSWORD, Sentinels' in LOAN_SENTINEL_PASSWORD)"

# --- the hosts ---------------------------------------------------------------------------------------------
declare -A PRIMARY_OF LOG_OF
HOST_STARTS=0
: >"$OUT/pids"
start_host() { # N [CLUSTER_OPTION...]: starts the host 127.0.0.N without waiting for it
  local n=$1 log
  shift
  HOST_STARTS=$((HOST_STARTS + 1))
  log="$OUT/host$n-$HOST_STARTS.log"
  on_exit kill_logged_pids "$log"
  start_bg "$log" env JAVA_TOOL_OPTIONS="$HEAP" LOAN_STORE_PASSWORD="$DATA_PW" LOAN_SENTINEL_PASSWORD="$SENTINEL_PW" \
    "$JAVA" -jar "$JAR" cluster --workers 2 --spares 0 --host "127.0.0.$n" --port "$PORT" --store "$STORE" "$@"
  PRIMARY_OF[$n]=$BG_PID
  LOG_OF[$n]=$log
}
await_host() { # N: until the host's cluster is ready; notes its workers' pids in $OUT/pids
  local pid
  await_line "${LOG_OF[$1]}" "$LINE_CLUSTER_READY" "${PRIMARY_OF[$1]}"
  for pid in $(pgrep -P "${PRIMARY_OF[$1]}"); do echo "$pid host$1" >>"$OUT/pids"; done
}
host_jvms() { echo "${PRIMARY_OF[$1]}" "$(pgrep -P "${PRIMARY_OF[$1]}" | tr '\n' ' ')"; } # N: primary and workers
gone() { [ -z "$(running_pids "$@")" ]; } # PID...: none of them runs
freeze_for() { # SECONDS PID...: SIGSTOP, then SIGCONT SECONDS later; sets t_fault and t_back
  local seconds=$1
  shift
  t_fault=$(now_s)
  kill -STOP "$@"
  sleep "$seconds"
  t_back=$(now_s)
  kill -CONT "$@"
}
for n in 2 3 4; do start_host "$n"; done
# Beside them, on 127.0.0.5 and not behind the balancer: one server that does not wait for a replica (phase 5).
start_bg "$OUT/noreplica.log" env JAVA_TOOL_OPTIONS="$HEAP" LOAN_STORE_PASSWORD="$DATA_PW" \
  LOAN_SENTINEL_PASSWORD="$SENTINEL_PW" "$JAVA" -jar "$JAR" serve --host 127.0.0.5 --port "$PORT" \
  --store "$STORE/1" --store-replicas 0
NOREPLICA_PID=$BG_PID
for n in 2 3 4; do await_host "$n"; done
await_line "$OUT/noreplica.log" "$LINE_SERVING" "$NOREPLICA_PID"
echo "pid $NOREPLICA_PID noreplica" >>"$OUT/pids"

# --- two balancers: deploy/haproxy.cfg as it is (the drain check), and a copy checking readiness --------------
sed 's#uri /observe/health/check/drain #uri /observe/health/ready #' deploy/haproxy.cfg >"$OUT/haproxy-ready.cfg"
grep -q 'uri /observe/health/ready ' "$OUT/haproxy-ready.cfg" || { echo "could not derive the readiness config" >&2; exit 1; }
# stats_poller STATS_URL: every 0.1 s one line "EPOCH_S host2=STATUS host3=STATUS host4=STATUS" (spaces in a
# status, as in "DOWN 1/2", become _), from the stats CSV.
stats_poller() {
  while :; do
    curl -s --max-time 1 "$1" | awk -F, -v t="$EPOCHREALTIME" '$1 == "hosts" && $2 ~ /^host/ {
      gsub(/ /, "_", $18); s = s " " $2 "=" $18 } END { print t s }' || true
    sleep 0.1
  done
}
start_haproxy "$OUT/haproxy-drain.log" deploy/haproxy.cfg "$PORT"
LB=$LB_URL
STATS=$STATS_URL
start_bg "$OUT/stats-drain.txt" stats_poller "$STATS"
start_haproxy "$OUT/haproxy-ready.log" "$OUT/haproxy-ready.cfg" "$PORT"
LB_READY=$LB_URL
STATS_READY=$STATS_URL
start_bg "$OUT/stats-ready.txt" stats_poller "$STATS_READY"
wait_until 30 haproxy_up "$STATS" 3 || { echo "the balancer did not mark the three hosts UP" >&2; exit 1; }
wait_until 30 haproxy_up "$STATS_READY" 3 || { echo "the readiness balancer did not mark the hosts UP" >&2; exit 1; }
echo "balancer: $LB (drain check, deploy/haproxy.cfg), $LB_READY (readiness check, for phase 6)"
figure setup-s $((SECONDS - START_S)) s "set-up: Redis, Sentinels, 3 hosts, the spare server and 2 balancers"
echo "set up in $((SECONDS - START_S)) s"
echo

# --- the load and what it saw -------------------------------------------------------------------------------
# The clients: start_timed_load, stop_timed_load, timed_counts, timed_failures, timed_p99_ms, timed_gap_ms
# (experiments/lib/load.sh); one line per request, "START_S END_S HTTP_CODE CURL_EXIT BODY".
spread() { # PREFIX: the answers that named a pid, per host
  cat "$1".[0-9]* | awk 'FNR == NR { host[$1] = $2; next }
      $3 == 200 && match($0, /"pid":[0-9]+/) { p = substr($0, RSTART + 6, RLENGTH - 6); n[(p in host) ? host[p] : "?"]++ }
      END { for (h in n) printf "%s=%d ", h, n[h] }' "$OUT/pids" - | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
}
# summary KEY WHAT PREFIX: one line of what the clients of PREFIX saw in phase KEY (e.g. 3a, 6-drain-books); its
# figures (ok.KEY, failed.KEY, p99.KEY, gap.KEY) and a row of the phases table
PHASE_ROWS=()
summary() {
  local ok failed p99 gap failures
  read -r ok failed < <(timed_counts "$3")
  p99=$(timed_p99_ms "$3")
  gap=$(timed_gap_ms "$3")
  failures=$(timed_failures "$3")
  figure "ok.$1" "$ok" "" "phase ${1%%-*}, $2: requests answered 200"
  figure "failed.$1" "$failed" "" "phase ${1%%-*}, $2: requests not answered 200"
  figure "p99.$1" "$p99" ms "phase ${1%%-*}, $2: the clients' p99"
  figure "gap.$1" "$gap" ms "phase ${1%%-*}, $2: the longest time without an answer"
  PHASE_ROWS+=("${1%%-*}|$2|$ok|$failed|$p99|$gap|$failures")
  printf '%-44s ok %6d  failed %4d  p99 %5s ms  longest gap %5s ms  failures: %s\n' "${1%%-*} $2" "$ok" "$failed" \
    "$p99" "$gap" "$failures"
}
# spread_figures KEY PREFIX: the answers of PREFIX that named a pid, per host, as figures answers.KEY.HOST; sets SPREAD
# (host2=N host3=N ...) and HOSTS_USED (how many hosts answered)
SPREAD_ROWS=()
spread_figures() {
  local pair n row=$1 h
  SPREAD=$(spread "$2")
  HOSTS_USED=$(wc -w <<<"$SPREAD")
  for h in host2 host3 host4; do
    pair=$(tr ' ' '\n' <<<"$SPREAD" | grep "^$h=" || true)
    n=${pair#*=}
    figure "answers.$1.$h" "${n:--}" "" "phase $1: answers from $h"
    row="$row|${n:--}"
  done
  SPREAD_ROWS+=("$row")
}
ACKED=0 LOAN_FAILED=0
# ledger KEY PREFIX...: adds the loans of PREFIX to the books after phase KEY and compares them with the counter; the
# figure counter-minus-acknowledged.KEY and a row of the ledger table
LEDGER_ROWS=()
ledger() {
  local key=$1 label="phase $1" ok failed c
  shift
  read -r ok failed < <(timed_counts "$@")
  ACKED=$((ACKED + ok))
  LOAN_FAILED=$((LOAN_FAILED + failed))
  c=$(counter 0)
  LEDGER_OK=false
  if [ $((c - ACKED)) -ge 0 ] && [ $((c - ACKED)) -le "$LOAN_FAILED" ]; then LEDGER_OK=true; fi
  figure "counter-minus-acknowledged.$key" $((c - ACKED)) "" "after $label: the counter - the loans acknowledged"
  LEDGER_ROWS+=("$label|$c|$ACKED|$((c - ACKED))|$LOAN_FAILED|$LEDGER_OK")
  printf '%-34s counter %d - acknowledged %d = %d (failed loan requests so far: %d): %s\n' "ledger after $label" \
    "$c" "$ACKED" $((c - ACKED)) "$LOAN_FAILED" "$LEDGER_OK"
  [ "$LEDGER_OK" = true ] || LEDGER_BROKEN="$LEDGER_BROKEN $label"
}
LEDGER_BROKEN=""
# marked_ms STATS_FILE HOST T0 REGEX: ms from T0 (epoch s) to the first poll whose HOST status matches REGEX
marked_ms() {
  awk -v h="$2" -v t0="$3" -v re="$4" '$1 >= t0 { for (i = 2; i <= NF; i++) if (index($i, h "=") == 1 &&
      substr($i, length(h) + 2) ~ re) { printf "%.0f\n", ($1 - t0) * 1000; f = 1; exit } } END { if (!f) print "-" }' "$1"
}
# down_up KEY CHECK HOST T_FAULT [T_BACK]: when the balancer checking CHECK (drain or ready) marked HOST down after
# T_FAULT, and up after T_BACK: the figures marked-down-ms.KEY.HOST (and marked-up-ms.KEY.HOST), a row of the
# balancer table, and the words in DOWN_UP
BALANCER_ROWS=()
down_up() {
  local key=$1 check=$2 host=$3 down up=-
  down=$(marked_ms "$OUT/stats-$check.txt" "$host" "$4" '^(DOWN|MAINT)')
  figure "marked-down-ms.$key.$host" "$down" ms "phase ${key%%-*}, $check check: $host marked down, after the fault"
  if [ "$down" = - ]; then
    DOWN_UP="$host never marked down"
  elif [ -n "${5:-}" ]; then
    up=$(marked_ms "$OUT/stats-$check.txt" "$host" "$5" '^UP')
    figure "marked-up-ms.$key.$host" "$up" ms "phase ${key%%-*}, $check check: $host marked up, after it came back"
    DOWN_UP="$host marked down ${down} ms after the fault, up again ${up} ms after it came back"
  else
    DOWN_UP="$host marked down ${down} ms after the fault"
  fi
  BALANCER_ROWS+=("${key%%-*}|$check|$host|${down/#-/never}|$up")
}
now_s() { echo "$EPOCHREALTIME"; }

# --- 1: 900 loans through the balancer ------------------------------------------------------------------------
echo "## 1: $LOANS loans through the balancer"
before=$(counter 0)
start_timed_load "$OUT/p1" 6 "$LB/loan" $((LOANS / 6))
await_timed_load
summary 1 "$LOANS loans" "$OUT/p1"
distinct=$(cat "$OUT"/p1.[0-9]* | awk '$3 == 200' | grep -o '"loanCounter":[0-9]*' | sort -u | wc -l)
after=$(counter 0)
figure distinct-counts.1 "$distinct" "" "phase 1: distinct loan counts in the answers"
figure counter-rise.1 $((after - before)) "" "phase 1: the counter's rise"
spread_figures 1 "$OUT/p1"
p1_hosts=$HOSTS_USED
echo "distinct counts $distinct, counter $before -> $after (+$((after - before))), by host: $SPREAD"
ledger 1 "$OUT/p1"
echo

# --- 2: one login, 30 session checks --------------------------------------------------------------------------
echo "## 2: a login through the balancer, then 30 session checks"
# A login that fails (or times out) leaves no token: the session checks then fail, and phase 2's verdict says so.
token=$(curl -s --max-time 30 -X POST "$LB/member/login" -H 'Content-Type: application/json' \
  -d '{"member":"ada","password":"password"}' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p') || true
timed_client "$LB/member/session" "" 30 -H "Authorization: Bearer $token" >"$OUT/p2.1"
summary 2 "30 session checks" "$OUT/p2"
read -r p2_ok _ < <(timed_counts "$OUT/p2")
spread_figures 2 "$OUT/p2"
echo "login: $([ -n "$token" ] && echo "a token" || echo "no token"); valid answers by host: $SPREAD"
echo

# --- 3: a host killed, hung, stopped ----------------------------------------------------------------------------
echo "## 3: faults of one host under a steady load of GET /loan"
# 3a: SIGKILL of host2's primary. Its workers read the primary's pipe and stop when it closes.
start_timed_load "$OUT/p3a" "$CLIENTS" "$LB/loan"
sleep 2
workers=$(pgrep -P "${PRIMARY_OF[2]}" | tr '\n' ' ')
t_fault=$(now_s)
stop_pid "${PRIMARY_OF[2]}" KILL
# shellcheck disable=SC2086 # one pid a word
wait_until 30 gone $workers || true
orphans_ms=$(calc '(a - b) * 1000' "$(now_s)" "$t_fault")
# shellcheck disable=SC2086 # one pid a word
orphans_left=$(running_pids $workers | wc -l)
sleep 5
stop_timed_load "$OUT/p3a"
summary 3a "host2 primary SIGKILLed" "$OUT/p3a"
figure workers-left.3a "$orphans_left" "" "phase 3a: the killed primary's workers still running"
figure workers-gone-ms.3a "$orphans_ms" ms "phase 3a: the killed primary's workers all gone, after the SIGKILL"
down_up 3a drain host2 "$t_fault"
echo "host2's workers: $orphans_left left, all gone after ${orphans_ms} ms; balancer: $DOWN_UP"
ledger 3a "$OUT/p3a"
start_host 2 --drain-delay 0   # for 3d

# 3b: host3's JVMs stopped for 6 s, then continued.
start_timed_load "$OUT/p3b" "$CLIENTS" "$LB/loan"
sleep 2
# shellcheck disable=SC2046 # one pid a word
freeze_for 6 $(host_jvms 3)
sleep 5
stop_timed_load "$OUT/p3b"
summary 3b "host3 SIGSTOP 6 s, SIGCONT" "$OUT/p3b"
down_up 3b drain host3 "$t_fault" "$t_back"
echo "balancer: $DOWN_UP"
ledger 3b "$OUT/p3b"

# sigterm_phase ID N LABEL: under a steady load of loans, SIGTERM to host N's primary; prints how long the host took
# to exit, the balancer's view and the ledger.
sigterm_phase() {
  local id=$1 n=$2 label=$3 t_fault stop_ms
  start_timed_load "$OUT/p$id" "$CLIENTS" "$LB/loan"
  sleep 2
  t_fault=$(now_s)
  stop_pid "${PRIMARY_OF[$n]}" TERM 40
  stop_ms=$(calc '(a - b) * 1000' "$(now_s)" "$t_fault")
  sleep 2
  stop_timed_load "$OUT/p$id"
  summary "$id" "$label" "$OUT/p$id"
  figure "exit-ms.$id" "$stop_ms" ms "phase $id: host$n exited, after SIGTERM"
  down_up "$id" drain "host$n" "$t_fault"
  echo "host$n exited ${stop_ms} ms after SIGTERM; balancer: $DOWN_UP"
  ledger "$id" "$OUT/p$id"
}

# 3c: SIGTERM to host4's primary, default drain delay (4 s).
await_host 2
wait_until 30 haproxy_up "$STATS" 3 || true
sigterm_phase 3c 4 "host4 SIGTERM, drain 4 s"
start_host 4

# 3d: SIGTERM to host2's primary, --drain-delay 0.
sigterm_phase 3d 2 "host2 SIGTERM, --drain-delay 0"
start_host 2
await_host 2
await_host 4
wait_until 30 haproxy_up "$STATS" 3 || { echo "the hosts did not come back UP" >&2; exit 1; }
echo

# --- 4: rolling restart of every host --------------------------------------------------------------------------
restarted() { [ "$(restarts_done "$1")" -gt 0 ]; }
if [ -n "$ROLL_HOSTS" ]; then
  echo "## 4: a rolling restart (SIGHUP) of $ROLL_NAMES, one host after another, under load"
  start_timed_load "$OUT/p4" "$CLIENTS" "$LB/loan"
  sleep 2
  roll_ms=()
  for n in $ROLL_HOSTS; do
    t=$(now_ms)
    kill -HUP "${PRIMARY_OF[$n]}"
    wait_until 180 restarted "${LOG_OF[$n]}" || { echo "host$n's rolling restart did not finish" >&2; exit 1; }
    t=$(($(now_ms) - t))
    figure "rolling-restart-ms.host$n" "$t" ms "phase 4: host$n's rolling restart, SIGHUP to done"
    roll_ms+=("host$n=${t}ms")
  done
  sleep 2
  stop_timed_load "$OUT/p4"
  summary 4 "rolling restart of $ROLL_NAMES" "$OUT/p4"
  read -r _ p4_failed < <(timed_counts "$OUT/p4")
  echo "each host's rolling restart took: ${roll_ms[*]}"
  ledger 4 "$OUT/p4"
else
  echo "## 4: no rolling restart (ROLL_HOSTS is empty, as --short leaves it)"
fi
echo

# --- 5: the Redis master killed --------------------------------------------------------------------------------
echo "## 5: the Redis master SIGKILLed under load; beside it a server with --store-replicas 0 (127.0.0.5, db 1)"
before1=$(counter 1)
start_timed_load "$OUT/p5" "$CLIENTS" "$LB/loan"
start_timed_load "$OUT/p5n" 1 "http://127.0.0.5:$PORT/loan"
sleep 3
old=$(sentinel_master_port)
t_fault=$(now_s)
if [ "$old" = "$REDIS_MASTER_PORT" ]; then
  stop_pid "$REDIS_MASTER_PID" KILL
  survivor=$REDIS_REPLICA_PID
else
  stop_pid "$REDIS_REPLICA_PID" KILL
  survivor=$REDIS_MASTER_PID
fi
new_master() { p=$(sentinel_master_port) && [ -n "$p" ] && [ "$p" != "$old" ]; }
wait_until 60 new_master || { echo "the Sentinels named no new master" >&2; exit 1; }
failover_ms=$(calc '(a - b) * 1000' "$(now_s)" "$t_fault")
new=$(sentinel_master_port)
# the old master comes back as the new one's replica
start_redis "$OUT" --port "$old" --password "$DATA_PW" --replicaof 127.0.0.1 "$new"
DATA_PIDS="$survivor $REDIS_PID"
wait_until 60 replica_in_sync "$old" || true
back_ms=$(calc '(a - b) * 1000' "$(now_s)" "$t_fault")
sleep 3
stop_timed_load "$OUT/p5n" "$OUT/p5"
summary 5 "Redis master SIGKILL, --store-replicas 1" "$OUT/p5"
summary 5-no-replica "beside it, --store-replicas 0" "$OUT/p5n"
figure failover-ms.5 "$failover_ms" ms "phase 5: the Sentinels named a new master, after the SIGKILL"
figure replica-back-ms.5 "$back_ms" ms "phase 5: the old master back as the new one's replica, after the SIGKILL"
echo "Sentinels named :$new the master ${failover_ms} ms after the SIGKILL; the old master was back as its replica after ${back_ms} ms"
ledger 5 "$OUT/p5"
P5_LEDGER=$LEDGER_OK
read -r n_ok n_failed < <(timed_counts "$OUT/p5n")
c1=$(counter 1)
n_lost=$((before1 + n_ok - c1))
figure lost.5-no-replica $(( n_lost > 0 ? n_lost : 0 )) "" "phase 5, --store-replicas 0: acknowledged loans lost"
echo "--store-replicas 0: counter $before1 -> $c1, acknowledged $n_ok, failed $n_failed: $(( n_lost > 0 ? n_lost : 0 )) acknowledged loans lost"
echo

# --- 6: a Redis outage, drain check against readiness check ---------------------------------------------------
echo "## 6: both Redis data nodes hung (SIGSTOP) for 8 s: balancer on the drain check vs on readiness"
start_timed_load "$OUT/p6-drain-books" 1 "$LB/books"
start_timed_load "$OUT/p6-drain-loan" 1 "$LB/loan"
start_timed_load "$OUT/p6-ready-books" 1 "$LB_READY/books"
start_timed_load "$OUT/p6-ready-loan" 1 "$LB_READY/loan"
sleep 2
# shellcheck disable=SC2086 # one pid a word
freeze_for 8 $DATA_PIDS
sleep 5
stop_timed_load "$OUT/p6-drain-books" "$OUT/p6-drain-loan" "$OUT/p6-ready-books" "$OUT/p6-ready-loan"
for p in drain-books drain-loan ready-books ready-loan; do
  summary "6-$p" "Redis hung: /${p#*-}, ${p%-*} check" "$OUT/p6-$p"
done
for h in host2 host3 host4; do
  down_up 6-drain drain "$h" "$t_fault" "$t_back"
  drain_words=$DOWN_UP
  down_up 6-ready ready "$h" "$t_fault" "$t_back"
  echo "drain-check balancer: $drain_words; readiness-check balancer: $DOWN_UP"
done
ledger 6 "$OUT/p6-drain-loan" "$OUT/p6-ready-loan"
read -r _ db_failed < <(timed_counts "$OUT/p6-drain-books")
read -r _ rb_failed < <(timed_counts "$OUT/p6-ready-books")
echo

# --- tables ----------------------------------------------------------------------------------------------------
# table_rows ROW...: each ROW (fields joined by |) as a row of the table begun last
table_rows() {
  local row fields
  for row in "$@"; do
    IFS='|' read -r -a fields <<<"$row"
    table_row "${fields[@]}"
  done
}
table phases "what the clients saw in each phase (one run)" phase what ok failed "p99 ms" "longest gap ms" failures
table_rows "${PHASE_ROWS[@]}"
table_end
table spread "answers that named a worker, by host" phase host2 host3 host4
table_rows "${SPREAD_ROWS[@]}"
table_end
table balancer "when a balancer marked a host down after the fault, and up after it came back (ms)" \
  phase check host "down ms" "up ms"
table_rows "${BALANCER_ROWS[@]}"
table_end
table ledger "the ledger after each phase that sends loans: counter - acknowledged in [0, failed]" \
  after counter acknowledged "counter - acknowledged" "failed loan requests so far" holds
table_rows "${LEDGER_ROWS[@]}"
table_end

# --- verdicts ------------------------------------------------------------------------------------------------
read -r p1_ok _ < <(timed_counts "$OUT/p1")
verdict "phase 1: the loans acknowledged, each with a distinct count" "$LOANS acknowledged, $LOANS distinct counts" \
  "$(truth [ "$p1_ok" -eq "$LOANS" ] && [ "$distinct" -eq "$LOANS" ])" "$BASIS"
verdict "phase 1: the counter rose by exactly the loans sent" "counter rise == $LOANS" \
  "$(truth [ $((after - before)) -eq "$LOANS" ])" "$BASIS"
verdict "phase 1: all three hosts answered" "answers from 3 hosts" "$(truth [ "$p1_hosts" -ge 3 ])" "$BASIS"
verdict "phase 2: every session check valid, whichever host answers" "30 of 30 valid" "$(truth [ "$p2_ok" -eq 30 ])" \
  "$BASIS"
for p in "3a|a host's primary SIGKILLed" "3b|a host hung" "3c|a host stopped with the default drain" \
    "3d|a host stopped with --drain-delay 0"; do
  IFS='|' read -r id what <<<"$p"
  read -r _ failed < <(timed_counts "$OUT/p$id")
  verdict "phase $id, $what: no request lost" "0 failed requests" "$(truth [ "$failed" -eq 0 ])" "$BASIS"
done
verdict "phase 3a: the killed primary's workers exit" "0 left within 2000 ms" \
  "$(truth [ "$orphans_left" -eq 0 ] && holds "$orphans_ms" '<=' 2000)" "$BASIS"
if [ -n "$ROLL_HOSTS" ]; then
  verdict "phase 4: a rolling restart of the hosts loses no request" \
    "0 failed requests through the rolling restart of $ROLL_NAMES" "$(truth [ "$p4_failed" -eq 0 ])" "$BASIS"
else
  verdict "phase 4: a rolling restart of the hosts loses no request" "0 failed requests through a rolling restart" \
    "not measured: no host to restart (ROLL_HOSTS is empty, as --short leaves it)" "$BASIS"
fi
verdict "phase 5: no acknowledged loan lost in the failover, --store-replicas 1" \
  "counter - acknowledged in [0, failed loan requests]" "$P5_LEDGER" "$BASIS"
if [ "$n_lost" -gt 0 ]; then
  verdict "phase 5: --store-replicas 0 lost acknowledged loans in the failover" "acknowledged loans lost > 0" true "$BASIS"
else
  verdict "phase 5: --store-replicas 0 lost acknowledged loans in the failover" "acknowledged loans lost > 0" \
    "not reproduced: loopback replication lags microseconds (RedisSentinelIT freezes the replica)" "$BASIS"
fi
verdict "phase 6: with the drain check /books stays up through the outage" "0 of the /books requests failed" \
  "$(truth [ "$db_failed" -eq 0 ])" "$BASIS"
verdict "phase 6: with the readiness check /books goes down with Redis" "some of the /books requests failed (> 0)" \
  "$(truth [ "$rb_failed" -gt 0 ])" "$BASIS"
verdict "the ledger holds after every phase" "counter - acknowledged in [0, failed loan requests so far], each time" \
  "$(truth [ -z "$LEDGER_BROKEN" ])" "$BASIS"
end_experiment
