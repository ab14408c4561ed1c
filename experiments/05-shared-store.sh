#!/usr/bin/env bash
# Processes must be stateless: a 3-worker cluster with each store in turn. (a) LOANS /loan requests: with `local`
# every worker counts only its own loans and the counters diverge; with a shared store (an SQLite file, a Redis
# server) every worker reports exactly LOANS. (b) One login, then 30 /member/session requests: with `local` only
# the worker that created the session knows it (about two thirds answer 401); with a shared store all answer 200.
# Every request is a new curl connection, so the kernel picks a worker per request. Redis runs only when
# redis-server is installed; the script starts its own on a free port and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

WORKERS=3
PORT=${PORT:-8431}
LOANS=${LOANS:-300}
CLIENTS=${CLIENTS:-6}
CHECKS=30
MEMBER_COST=${MEMBER_COST:-65536,8,8}
require_free_port "$PORT"
begin_experiment 05-shared-store
echo "port:    $PORT"
echo "workers: $WORKERS  loans: $LOANS (from $CLIENTS curl clients)  session checks: $CHECKS  member cost: $MEMBER_COST"

STORES=(local "sqlite:$OUT/loans.db")
if command -v redis-server >/dev/null; then
  start_redis "$OUT"
  echo "redis:   $(redis-server --version | cut -d' ' -f1-3) pid=$REDIS_PID port=$REDIS_PORT"
  STORES+=("$REDIS_URL/0")
else
  echo "redis:   SKIPPED, redis-server is not installed (apt-get install redis-server)"
fi
echo

# loans LABEL: LOANS /loan requests from CLIENTS curl processes, one connection each; "pid counter" per answer.
loans() {
  local label=$1 c n pids=()
  for c in $(seq "$CLIENTS"); do
    n=$((LOANS / CLIENTS + (c <= LOANS % CLIENTS ? 1 : 0)))
    for _ in $(seq "$n"); do printf 'url = "http://127.0.0.1:%s/loan"\n' "$PORT"; done >"$OUT/$label-loans.curlrc.$c"
    start_bg "$OUT/$label-loans.$c" curl -s -K "$OUT/$label-loans.curlrc.$c" -H 'Connection: close' --max-time 10 \
      -w '\n'
    pids+=("$BG_PID")
  done
  for c in "${pids[@]}"; do wait_pid "$c" || true; done
  cat "$OUT/$label-loans".[0-9]* | sed -n 's/.*"pid":\([0-9]*\),"loanCounter":\([0-9]*\).*/\1 \2/p' \
    >"$OUT/$label-loans.txt"
  rm -f "$OUT/$label-loans".[0-9]* "$OUT/$label-loans.curlrc".*
}

# statuses LABEL: asks /status until every worker has answered once; "pid loanCounter" per worker.
statuses() {
  local label=$1
  : >"$OUT/$label-status.txt"
  for _ in $(seq 60); do
    curl -s -H 'Connection: close' -w '\n' "http://127.0.0.1:$PORT/status" \
      | sed -n 's/.*"pid":\([0-9]*\),"loanCounter":\([0-9]*\).*/\1 \2/p' >>"$OUT/$label-status.txt"
    [ "$(cut -d' ' -f1 "$OUT/$label-status.txt" | sort -u | wc -l)" -ge "$WORKERS" ] && break
  done
  sort -u -k1,1n "$OUT/$label-status.txt" -o "$OUT/$label-status.txt"
}

# sessions LABEL: one login, then CHECKS /member/session requests; "status pid" per answer.
sessions() {
  local label=$1 token
  token=$(curl -s -X POST -H 'Content-Type: application/json' -H 'Connection: close' \
    -d '{"member":"ada","password":"password"}' "http://127.0.0.1:$PORT/member/login" \
    | sed -n 's/.*"token":"\([A-Za-z0-9_-]*\)".*/\1/p')
  [ -n "$token" ] || { echo "login as ada failed with store $label" >&2; exit 1; }
  for _ in $(seq "$CHECKS"); do
    curl -s -H 'Connection: close' -H "Authorization: Bearer $token" -w ' %{http_code}\n' \
      "http://127.0.0.1:$PORT/member/session"
  done | awk '{ pid = "-"; if (match($0, /"pid":[0-9]+/)) pid = substr($0, RSTART + 6, RLENGTH - 6); print $NF, pid }' \
    >"$OUT/$label-sessions.txt"
}

: >"$OUT/summary.tsv"
for store in "${STORES[@]}"; do
  label=${store%%:*}
  echo "--- store $store ---"
  start_cluster "$OUT/$label-cluster.log" --workers "$WORKERS" --port "$PORT" --store "$store" \
    --member-cost "$MEMBER_COST"
  loans "$label"
  statuses "$label"
  sessions "$label"
  stop_cluster

  answered=$(wc -l <"$OUT/$label-loans.txt")
  distinct=$(cut -d' ' -f2 "$OUT/$label-loans.txt" | sort -un | wc -l)
  echo "(a) $LOANS /loan requests, $answered answered; counts carried by the answers: $distinct distinct"
  printf '    %-8s %9s %18s\n' pid "answered" "/status loanCounter"
  awk 'NR == FNR { n[$1]++; next } { printf "    %-8s %9d %18d\n", $1, n[$1], $2 }' \
    "$OUT/$label-loans.txt" "$OUT/$label-status.txt"
  ok=$(awk '$1 == 200' "$OUT/$label-sessions.txt" | wc -l)
  unknown=$(awk '$1 == 401' "$OUT/$label-sessions.txt" | wc -l)
  echo "(b) 1 login, $CHECKS /member/session: $ok answered 200, $unknown answered 401"
  awk '{ k = $1 " " $2; n[k]++ } END { for (k in n) print k, n[k] }' "$OUT/$label-sessions.txt" | sort \
    | awk '{ printf "    status %s from pid %-8s x%d\n", $1, $2, $3 }'
  counts=$(cut -d' ' -f2 "$OUT/$label-status.txt" | paste -sd,)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$store" "$answered" "$distinct" "$counts" "$ok" "$unknown" \
    >>"$OUT/summary.tsv"
  echo
done

# --- results table and verdicts ------------------------------------------------------------------------------------
echo "# results ($LOANS loans, $CHECKS session checks, $WORKERS workers)"
printf '%-7s %9s %16s %-22s %12s %12s\n' store answered "distinct counts" "/status per worker" "session 200" "session 401"
awk -F'\t' '{ printf "%-7s %9d %16d %-22s %12d %12d\n", $1, $3, $4, $5, $6, $7 }' "$OUT/summary.tsv"
echo
while IFS=$'\t' read -r label store answered distinct counts ok unknown; do
  workers_seen=$(tr ',' '\n' <<<"$counts" | wc -l)
  if [ "$label" = local ]; then
    sum=$(tr ',' '\n' <<<"$counts" | awk '{ s += $1 } END { print s + 0 }')
    below=$(tr ',' '\n' <<<"$counts" | awk -v n="$LOANS" '$1 < n' | wc -l)
    diverge=false
    if [ "$answered" -eq "$LOANS" ] && [ "$workers_seen" -eq "$WORKERS" ] && [ "$below" -eq "$WORKERS" ] \
      && [ "$sum" -eq "$LOANS" ]; then
      diverge=true
    fi
    verdict "local: counters diverge: after $answered of $LOANS loans the workers report $counts (sum $sum), none the total" \
      "$diverge"
    # 30 checks, each on a worker chosen by the connection's hash: 401 in about 2 of 3 (binomial mean 20, sd 2.6).
    lost=false
    if [ "$unknown" -ge $((CHECKS * 4 / 10)) ] && [ "$unknown" -le $((CHECKS * 9 / 10)) ] \
      && [ $((ok + unknown)) -eq "$CHECKS" ]; then
      lost=true
    fi
    verdict "local: about two thirds of session checks fail: $unknown of $CHECKS answered 401, $ok answered 200" \
      "$lost"
  else
    exact=$(tr ',' '\n' <<<"$counts" | awk -v n="$LOANS" '$1 != n' | wc -l)
    shared=false
    if [ "$answered" -eq "$LOANS" ] && [ "$distinct" -eq "$LOANS" ] && [ "$workers_seen" -eq "$WORKERS" ] \
      && [ "$exact" -eq 0 ]; then
      shared=true
    fi
    verdict "$label: exact: after $answered of $LOANS loans all workers report $counts; the answers carried $distinct distinct counts" \
      "$shared"
    verdict "$label: no session check fails: $ok of $CHECKS answered 200, $unknown answered 401" \
      "$(truth [ "$ok" -eq "$CHECKS" ])"
  fi
done <"$OUT/summary.tsv"
grep -q redis "$OUT/summary.tsv" || verdict "redis: exact counts and sessions" "not measured: redis-server is not installed"

# --- JSON and charts ------------------------------------------------------------------------------------------------
awk -F'\t' -v loans="$LOANS" -v checks="$CHECKS" -v workers="$WORKERS" '
  BEGIN { printf "{\"loans\":%d,\"sessionChecks\":%d,\"workers\":%d,\"stores\":[", loans, checks, workers }
  { printf "%s{\"store\":\"%s\",\"uri\":\"%s\",\"answered\":%d,\"distinctCounts\":%d,\"statusPerWorker\":[%s],\"session200\":%d,\"session401\":%d}",
    (NR > 1 ? "," : ""), $1, $2, $3, $4, $5, $6, $7 }
  END { print "]}" }' "$OUT/summary.tsv" >"$OUT/results.json"
# Each worker's /status after LOANS loans, per store (workers in pid order), and the session checks' answers.
awk -F'\t' -v workers="$WORKERS" '
  { cat = cat (NR > 1 ? "," : "") "\"" $1 "\""; n = split($5, c, ",")
   for (w = 1; w <= workers; w++) v[w] = v[w] (NR > 1 ? "," : "") (w <= n ? c[w] : 0) }
  END { printf "{\"categories\":[%s],\"series\":[", cat
     for (w = 1; w <= workers; w++) printf "%s{\"label\":\"worker %d\",\"values\":[%s]}", (w > 1 ? "," : ""), w, v[w]
     print "]}" }' "$OUT/summary.tsv" >"$OUT/counters.bars.json"
awk -F'\t' '
  { cat = cat (NR > 1 ? "," : "") "\"" $1 "\""; ok = ok (NR > 1 ? "," : "") $6; bad = bad (NR > 1 ? "," : "") $7 }
  END { printf "{\"categories\":[%s],\"series\":[{\"label\":\"200: session known\",\"values\":[%s]},", cat, ok
     printf "{\"label\":\"401: session unknown\",\"values\":[%s]}]}\n", bad }' "$OUT/summary.tsv" \
  >"$OUT/sessions.bars.json"
loan_runtime chart bars --title "Each worker's loan counter after $LOANS loans (cluster --workers $WORKERS)" \
  --x-label "store" --y-label "/status loanCounter" --mark "$LOANS" --mark-label "every loan: $LOANS" \
  --out "$OUT/shared-store-counters.png" "$OUT/counters.bars.json" >/dev/null
loan_runtime chart bars --stacked --title "$CHECKS session checks after one login" --x-label "store" \
  --y-label "answers" --out "$OUT/shared-store-sessions.png" "$OUT/sessions.bars.json" >/dev/null
echo "json: $OUT/results.json   charts: $OUT/shared-store-counters.png $OUT/shared-store-sessions.png"
