#!/usr/bin/env bash
# The process is the unit of scaling: `cluster --workers 3` runs three worker JVMs on one port (SO_REUSEPORT).
# Shows which worker answered 12 /loan requests, that every worker counts only its own loans, that a worker killed
# with SIGKILL is replaced by a new pid, how 300 connections spread, and that SIGTERM to the primary leaves no
# process behind. Every request is a new curl process, so a new connection: the kernel picks a worker per connection.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

WORKERS=3
PORT=${PORT:-8431}
require_free_port "$PORT"
begin_experiment 03-cluster
echo "port:    $PORT"
echo "command: java -jar target/loan-runtime.jar cluster --workers $WORKERS --port $PORT"
echo

LOG="$OUT/cluster.log"
start_cluster "$LOG" --workers "$WORKERS" --port "$PORT"
grep "^primary pid=" "$LOG"
originals=$(worker_pids)
loan() { curl -sS "http://127.0.0.1:$PORT/loan"; echo; }

echo "--- 12 loan requests: which worker answered how many times ---"
for _ in $(seq 12); do loan; done >"$OUT/loans-12.txt"
grep -o '"pid":[0-9]*' "$OUT/loans-12.txt" | sort | uniq -c

echo "--- four more: each worker's counter lives in its own memory ---"
for _ in 1 2 3 4; do loan; done | tee "$OUT/loans-4.txt"

echo "--- a worker is killed, a replacement arrives ---"
victim=$(curl -sS "http://127.0.0.1:$PORT/status" | json_pid)
grep -qx "$victim" <<<"$originals" || { echo "pid $victim is not a worker of primary $PRIMARY" >&2; exit 1; }
echo "killed worker pid=$victim"
kill -KILL "$victim"
# a new worker pid, and its "serving" line in the primary's log
replacement_serves() {
  local new
  new=$(worker_pids | grep -vx -f <(echo "$originals") | head -1 || true)
  [ -n "$new" ] && grep -q "serving pid=$new " "$LOG"
}
wait_until 120 replacement_serves || { echo "no replacement within 120 s" >&2; exit 1; }
grep "died pid=$victim" "$LOG"
# Ask until all three current workers have answered (at most 60 connections).
: >"$OUT/after-kill.txt"
for _ in $(seq 60); do
  { curl -sS "http://127.0.0.1:$PORT/status"; echo; } >>"$OUT/after-kill.txt"
  [ "$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u | wc -l)" -ge "$WORKERS" ] && break
done
grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u

echo "--- 300 connections: how the kernel's hash spreads them ---"
for _ in $(seq 300); do curl -sS "http://127.0.0.1:$PORT/status"; echo; done | json_pid | sort | uniq -c \
  | awk '{print $2, $1}' >"$OUT/spread-300.txt"
awk '{ d = $2 - 100; printf "  pid %-8s %4d  %+4d  ", $1, $2, d; for (i = 0; i < $2 / 4; i++) printf "#"; printf "\n" }' \
  "$OUT/spread-300.txt"
# Each connection picks a worker independently: counts are binomial(300, 1/3), mean 100, standard deviation 8.2.
max_dev=$(awk '{ d = $2 - 100; if (d < 0) d = -d; if (d > m) m = d } END { print m + 0 }' "$OUT/spread-300.txt")
echo "largest deviation from 100: $max_dev (binomial standard deviation: 8.2)"

echo "--- SIGTERM to the primary: every worker goes down with it ---"
all_workers=$(announced_workers "$LOG")
kill -TERM "$PRIMARY"
primary_exit=0
wait_pid "$PRIMARY" || primary_exit=$?
PRIMARY=""
# shellcheck disable=SC2086 # one pid a word
left=$(running_pids $all_workers | wc -l)
echo "primary exit=$primary_exit, workers still running: $left (of $(wc -w <<<"$all_workers") it ever started)"
tail -6 "$LOG"

# --- verdicts ---------------------------------------------------------------------------------------------------
echo
pids_12=$(grep -o '"pid":[0-9]*' "$OUT/loans-12.txt" | sort -u | wc -l)
pids_300=$(wc -l <"$OUT/spread-300.txt")
verdict "connections spread over all $WORKERS pids ($pids_12 answered the first 12 /loan, $pids_300 answered 300 /status)" \
  "$(truth [ "$pids_300" -eq "$WORKERS" ])"
# Each worker's counter must be the number of loans that worker itself answered.
diverged=$(cat "$OUT/loans-12.txt" "$OUT/loans-4.txt" | awk -F'[:,}]' '
  { pid = $2; n[pid]++; if ($4 != n[pid]) bad++ ; total++ }
  END { if (bad == 0 && length(n) > 1) print "yes " total; else print "no " total }')
verdict "counters diverge: after ${diverged#* } loans each worker's counter is the loans it answered itself" \
  "$(truth [ "${diverged%% *}" = yes ])"
new_pids=$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u | cut -d: -f2 | grep -cvx -f <(echo "$originals") || true)
replaced=false
if ! grep -q "\"pid\":$victim\b" "$OUT/after-kill.txt" && [ "$new_pids" -ge 1 ]; then replaced=true; fi
verdict "a killed worker is replaced: pid $victim no longer answers, $new_pids new pid(s) do" "$replaced"
clean_stop=false
if [ "$primary_exit" -eq 0 ] && [ "$left" -eq 0 ]; then clean_stop=true; fi
verdict "SIGTERM to the primary leaves no process (exit $primary_exit, $left workers running)" "$clean_stop"
echo "info:    the spread is even on average, not 4/4/4: largest deviation $max_dev over 300 connections"

# --- JSON and chart -------------------------------------------------------------------------------------------------
{
  printf '{"workers":%s,"port":%s,"kernel":"%s","loans12":{' "$WORKERS" "$PORT" "$(uname -r)"
  grep -o '"pid":[0-9]*' "$OUT/loans-12.txt" | cut -d: -f2 | sort | uniq -c \
    | awk '{printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $2, $1}'
  printf '},"killedPid":%s,"afterKillPids":[%s],"spread300":{' "$victim" \
    "$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | cut -d: -f2 | sort -u | paste -sd,)"
  awk '{printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $1, $2}' "$OUT/spread-300.txt"
  printf '},"primaryExit":%s,"workersLeft":%s}\n' "$primary_exit" "$left"
} >"$OUT/results.json"
# The chart's data: one bar per worker pid.
awk 'BEGIN { printf "{\"categories\":[" }
   { printf "%s\"pid %s\"", (NR > 1 ? "," : ""), $1; v = v (NR > 1 ? "," : "") $2 }
   END { printf "],\"series\":[{\"label\":\"connections answered\",\"values\":[%s]}]}\n", v }' \
  "$OUT/spread-300.txt" >"$OUT/spread-300.bars.json"
loan_runtime chart bars --title "300 connections over the workers of cluster --workers 3" --x-label "worker" \
  --y-label "connections answered" --mark 100 --mark-label "an even share: 100" \
  --out "$OUT/spread-300.png" "$OUT/spread-300.bars.json" >/dev/null
echo "json: $OUT/results.json   chart: $OUT/spread-300.png"
