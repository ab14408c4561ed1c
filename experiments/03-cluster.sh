#!/usr/bin/env bash
# The process is the unit of scaling: `cluster --workers 3` runs three worker JVMs on one port (SO_REUSEPORT).
# Shows which worker answered 12 /loan requests, that every worker counts only its own loans, that a worker killed
# with SIGKILL is replaced by a new pid, how 300 connections spread, and that SIGTERM to the primary leaves no
# process behind. Every request is a new curl process, so a new connection: the kernel picks a worker per connection.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=03-cluster
source experiments/lib/cluster.sh

WORKERS=3
PORT=${PORT:-8431}
trap cleanup_all EXIT

build_once
if port_in_use "$PORT"; then echo "port $PORT is in use; set PORT to a free one" >&2; exit 1; fi
print_config
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
deadline=$((SECONDS + 120))
until [ "$(worker_pids | grep -cvx -f <(echo "$originals") || true)" -ge 1 ] \
    && grep -q "serving pid=$(worker_pids | grep -vx -f <(echo "$originals") | head -1) " "$LOG"; do
  [ $SECONDS -lt $deadline ] || { echo "no replacement within 120 s" >&2; exit 1; }
  sleep 0.1
done
grep "died pid=$victim" "$LOG"
# Ask until all three current workers have answered (at most 60 connections).
for _ in $(seq 60); do
  curl -sS "http://127.0.0.1:$PORT/status"; echo
  [ "$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" 2>/dev/null | sort -u | wc -l)" -ge "$WORKERS" ] && break
done >"$OUT/after-kill.txt"
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
set +e
wait "$PRIMARY"
primary_exit=$?
set -e
PRIMARY=""
# shellcheck disable=SC2086
left=$(running_pids $all_workers | wc -l)
echo "primary exit=$primary_exit, workers still running: $left (of $(wc -w <<<"$all_workers") it ever started)"
tail -6 "$LOG"

# --- verdicts ---------------------------------------------------------------------------------------------------
echo
echo "# verdicts"
pids_12=$(grep -o '"pid":[0-9]*' "$OUT/loans-12.txt" | sort -u | wc -l)
pids_300=$(wc -l <"$OUT/spread-300.txt")
if [ "$pids_300" -eq "$WORKERS" ]; then
  echo "PASS connections spread over all $WORKERS pids ($pids_12 of them answered the first 12 /loan, all $WORKERS answered 300 /status)"
else
  echo "FAIL connections spread over all $WORKERS pids: $pids_300 answered 300 /status"
fi
# Each worker's counter must be the number of loans that worker itself answered.
diverged=$(cat "$OUT/loans-12.txt" "$OUT/loans-4.txt" | awk -F'[:,}]' '
  { pid = $2; n[pid]++; if ($4 != n[pid]) bad++ ; total++ }
  END { if (bad == 0 && length(n) > 1) print "yes " total; else print "no " total }')
if [ "${diverged%% *}" = yes ]; then
  echo "PASS counters diverge: after ${diverged#* } loans every worker's counter equals only the loans it answered itself"
else
  echo "FAIL counters diverge: some counter is not its own worker's count"
fi
new_pids=$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u | cut -d: -f2 | grep -cvx -f <(echo "$originals") || true)
if ! grep -q "\"pid\":$victim\b" "$OUT/after-kill.txt" && [ "$new_pids" -ge 1 ]; then
  echo "PASS a killed worker is replaced: pid $victim is gone and a new pid answers"
else
  echo "FAIL a killed worker is replaced: victim still answers or no new pid"
fi
if [ "$primary_exit" -eq 0 ] && [ "$left" -eq 0 ]; then
  echo "PASS SIGTERM to the primary leaves no process: exit 0, 0 workers running"
else
  echo "FAIL SIGTERM to the primary leaves no process: exit $primary_exit, $left workers running"
fi
echo "INFO the spread is even on average, not 4/4/4: largest deviation $max_dev over 300 connections"

# --- JSON and chart -------------------------------------------------------------------------------------------------
{
  printf '{"workers":%s,"port":%s,"kernel":"%s","loans12":{' "$WORKERS" "$PORT" "$(uname -r)"
  grep -o '"pid":[0-9]*' "$OUT/loans-12.txt" | cut -d: -f2 | sort | uniq -c | awk '{printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $2, $1}'
  printf '},"killedPid":%s,"afterKillPids":[%s],"spread300":{' "$victim" \
    "$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | cut -d: -f2 | sort -u | paste -sd,)"
  awk '{printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $1, $2}' "$OUT/spread-300.txt"
  printf '},"primaryExit":%s,"workersLeft":%s}\n' "$primary_exit" "$left"
} >"$OUT/results.json"
awk 'BEGIN { w = 420; h = 60 + 40 * 3; printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">\n", w, h
             print "<text x=\"10\" y=\"22\">300 connections per worker (cluster --workers 3)</text>" }
     { y = 40 + (NR - 1) * 40; len = $2 * 2
       printf "<text x=\"10\" y=\"%d\">pid %s</text><rect x=\"90\" y=\"%d\" width=\"%d\" height=\"24\" fill=\"#4a7ab5\"/>", y + 17, $1, y, len
       printf "<text x=\"%d\" y=\"%d\">%d</text>\n", 96 + len, y + 17, $2 }
     END { printf "<line x1=\"290\" y1=\"34\" x2=\"290\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"4\"/></svg>\n", 40 + NR * 40 }' \
  "$OUT/spread-300.txt" >"$OUT/spread-300.svg"
echo "json: $OUT/results.json   chart: $OUT/spread-300.svg"
