#!/usr/bin/env bash
# The process is the unit of scaling: `cluster --workers 3` runs three worker JVMs on one port (SO_REUSEPORT).
# Shows, in rounds on one cluster, which worker answered each round's 16 /loan requests and that every worker counts
# only its own loans; then that a worker killed with SIGKILL is replaced by a new pid; then, in rounds again, how 300
# connections spread; and last that SIGTERM to the primary leaves no process behind. Every request is a new
# connection (Connection: close), so the kernel picks a worker per request.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
WORKERS=3
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
LOANS=${LOANS:-16}
CONNECTIONS=${CONNECTIONS:-300}
PORT=${PORT:-$(free_port)}
require_free_port "$PORT"
begin_experiment 03-cluster \
  "Do worker JVMs share one port while each counts only its own loans, and does the primary replace a killed worker and take every worker down with it?"
echo "port:    $PORT"
echo "command: java -jar target/loan-runtime.jar cluster --workers $WORKERS --port $PORT --drain-delay 0"
echo "rounds:  $ROUNDS x $LOANS /loan requests, then a worker killed, then $ROUNDS x $CONNECTIONS /status connections"
setting workers "$WORKERS"
setting rounds "$ROUNDS"
setting loans-per-round "$LOANS"
setting connections-per-round "$CONNECTIONS"
echo

LOG="$OUT/cluster.log"
# No balancer watches the workers' readiness here: at SIGTERM they stop without reporting not-ready first.
start_cluster "$LOG" --workers "$WORKERS" --port "$PORT" --drain-delay 0
grep "^primary pid=" "$LOG"
originals=$(worker_pids)

# --- loans: each worker's counter lives in its own memory ----------------------------------------------------------
: >"$OUT/loans.txt"
for round in $(seq "$ROUNDS"); do
  before=$(wc -l <"$OUT/loans.txt")
  # One answer a line; a request that fails leaves its line empty of a pid, and the counts show it.
  curl_requests "$LOANS" "http://127.0.0.1:$PORT/loan" -S \
    | sed -n 's/.*"pid":\([0-9]*\),"loanCounter":\([0-9]*\).*/\1 \2/p' >>"$OUT/loans.txt"
  # A worker's counter must be the number of loans that worker itself answered, all rounds so far.
  read -r answered workers mismatched highest < <(awk -v from="$before" '
    { n[$1]++; if (NR > from) { answered++; seen[$1] = 1; if ($2 != n[$1]) bad++ } if ($2 > top) top = $2 }
    END { print answered + 0, length(seen), bad + 0, top + 0 }' "$OUT/loans.txt")
  total=$(wc -l <"$OUT/loans.txt")
  echo "round $round: $answered of $LOANS /loan answered by $workers worker(s); highest counter $highest of $total loans"
  figure loans.answered "$answered" "" "/loan requests answered in the round"
  figure loans.workers "$workers" "" "workers that answered the round's /loan requests"
  figure loans.mismatched "$mismatched" "" "answers whose counter is not the loans its worker answered"
  figure loans.highest-share "$(calc 'a / b' "$highest" "$total")" "" "highest counter over all loans so far"
done
table loans "$((ROUNDS * LOANS)) /loan requests over $WORKERS workers" "worker pid" "loans answered" "its counter"
awk '{ n[$1]++; c[$1] = $2 } END { for (p in n) print p, n[p], c[p] }' "$OUT/loans.txt" | sort -n \
  | while read -r p n c; do table_row "$p" "$n" "$c"; done
table_end

# --- a worker is killed, a replacement arrives -----------------------------------------------------------------------
victim=$(curl -sS "http://127.0.0.1:$PORT/status" | json_pid)
grep -qx "$victim" <<<"$originals" || { echo "pid $victim is not a worker of primary $PRIMARY" >&2; exit 1; }
echo "killed worker pid=$victim"
kill -KILL "$victim"
# a new worker pid, and its "serving" line in the primary's log
replacement_serves() {
  local new
  new=$(worker_pids | grep -vx -f <(echo "$originals") | head -1 || true)
  [ -n "$new" ] && serves_pid "$LOG" "$new"
}
wait_until 120 replacement_serves || { echo "no replacement within 120 s" >&2; exit 1; }
grep "died pid=$victim" "$LOG"
# Ask until all three current workers have answered (at most 60 connections).
: >"$OUT/after-kill.txt"
ask_each_worker "$WORKERS" "http://127.0.0.1:$PORT/status" "$OUT/after-kill.txt" -S
grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u
new_pids=$(grep -o '"pid":[0-9]*' "$OUT/after-kill.txt" | sort -u | cut -d: -f2 | grep -cvx -f <(echo "$originals") || true)
replaced=false
if ! grep -q "\"pid\":$victim\b" "$OUT/after-kill.txt" && [ "$new_pids" -ge 1 ]; then replaced=true; fi

# --- connections: how the kernel's hash spreads them ---------------------------------------------------------------
# Each connection picks a worker independently: counts are binomial(300, 1/3), mean 100, standard deviation 8.2.
even=$((CONNECTIONS / WORKERS))
for round in $(seq "$ROUNDS"); do
  curl_requests "$CONNECTIONS" "http://127.0.0.1:$PORT/status" -S | json_pid | sort | uniq -c | awk '{ print $2, $1 }' \
    >"$OUT/spread-$round.txt"
  echo "round $round: $CONNECTIONS connections"
  awk -v even="$even" '{ d = $2 - even; printf "  pid %-8s %4d  %+4d  ", $1, $2, d
    for (i = 0; i < $2 / 4; i++) printf "#"; printf "\n" }' "$OUT/spread-$round.txt"
  read -r workers least most deviation < <(awk -v even="$even" '
    { d = $2 - even; if (d < 0) d = -d; if (d > m) m = d; if (NR == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
    END { print NR, lo + 0, hi + 0, m + 0 }' "$OUT/spread-$round.txt")
  figure spread.workers "$workers" "" "workers that answered the round's connections"
  figure spread.least "$least" connections "fewest connections a worker answered"
  figure spread.most "$most" connections "most connections a worker answered"
  figure spread.max-deviation "$deviation" connections "largest deviation from an even share"
done
columns=()
for round in $(seq "$ROUNDS"); do columns+=("round $round"); done
table spread "$CONNECTIONS connections a round over the workers (an even share: $even)" "worker pid" "${columns[@]}"
cat "$OUT"/spread-[0-9]*.txt | cut -d' ' -f1 | sort -un | while read -r p; do
  row=("$p")
  for round in $(seq "$ROUNDS"); do
    row+=("$(awk -v p="$p" '$1 == p { n = $2 } END { print n + 0 }' "$OUT/spread-$round.txt")")
  done
  table_row "${row[@]}"
done
table_end

# --- SIGTERM to the primary: every worker goes down with it ----------------------------------------------------------
all_workers=$(announced_workers "$LOG")
kill -TERM "$PRIMARY"
primary_exit=0
wait_pid "$PRIMARY" || primary_exit=$?
PRIMARY=""
# shellcheck disable=SC2086 # one pid a word
left=$(running_pids $all_workers | wc -l)
echo "primary exit=$primary_exit, workers still running: $left (of $(wc -w <<<"$all_workers") it ever started)"
tail -6 "$LOG"
figure stop.primary-exit "$primary_exit" "" "the primary's exit status after SIGTERM"
figure stop.workers-left "$left" "" "workers and spares still running after the primary's exit"
echo

# --- verdicts ---------------------------------------------------------------------------------------------------
verdict_on "connections spread over all workers" spread.workers '>=' "$WORKERS" all
verdict_on "counters diverge: each worker's counter is the loans it answered itself" loans.mismatched '==' 0 all
verdict_on "no worker's counter holds every loan" loans.highest-share '<' 1 all
verdict "a killed worker is replaced" "the killed pid no longer answers, a new pid does" "$replaced"
clean_stop=false
if [ "$primary_exit" -eq 0 ] && [ "$left" -eq 0 ]; then clean_stop=true; fi
verdict "SIGTERM to the primary leaves no process" "the primary exits 0 and no worker it started runs" "$clean_stop"
echo "info:    the spread is even on average, not 4/4/4: largest deviation $(figure_median spread.max-deviation)" \
  "connections (median of $ROUNDS round(s) of $CONNECTIONS)"

# --- chart: one bar per worker pid, one series per round ------------------------------------------------------------
cat "$OUT"/spread-[0-9]*.txt | cut -d' ' -f1 | sort -un >"$OUT/spread.pids"
for round in $(seq "$ROUNDS"); do
  awk 'NR == FNR { n[$1] = $2; next } { print n[$1] + 0 }' "$OUT/spread-$round.txt" "$OUT/spread.pids" \
    | jq -sc --arg name "round $round" '{label: $name, values: .}'
done | jq -s --rawfile pids "$OUT/spread.pids" \
  '{categories: ($pids | split("\n") | map(select(length > 0) | "pid " + .)), series: .}' >"$OUT/spread-300.bars.json"
loan_runtime chart bars --title "$CONNECTIONS connections a round over the workers of cluster --workers $WORKERS" \
  --x-label "worker" --y-label "connections answered" --mark "$even" --mark-label "an even share: $even" \
  --out "$OUT/spread-300.png" "$OUT/spread-300.bars.json" >/dev/null
end_experiment
