#!/usr/bin/env bash
# Processes must be stateless: a 3-worker cluster with each store in turn. (a) LOANS /loan requests: with `local`
# every worker counts only its own loans and the counters diverge; with a shared store (an SQLite file, a Redis
# server) every worker reports exactly LOANS. (b) One login, then 30 /member/session requests: with `local` only
# the worker that created the session knows it (about two thirds answer 401); with a shared store all answer 200.
# Every request is a new curl connection, so the kernel picks a worker per request. Redis runs only when
# redis-server is installed; the script starts its own on a free port and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=05-shared-store
source experiments/lib/cluster.sh

WORKERS=3
PORT=${PORT:-8431}
LOANS=${LOANS:-300}
CLIENTS=${CLIENTS:-6}
CHECKS=30
MEMBER_COST=${MEMBER_COST:-65536,8,8}
REDIS_PID=""

stop_redis() {
  [ -n "$REDIS_PID" ] || return 0
  kill -TERM "$REDIS_PID" 2>/dev/null || true
  wait "$REDIS_PID" 2>/dev/null || true
  REDIS_PID=""
}
cleanup() {
  cleanup_all
  stop_redis
}
trap cleanup EXIT

build_once
if port_in_use "$PORT"; then echo "port $PORT is in use; set PORT to a free one" >&2; exit 1; fi
print_config
echo "workers: $WORKERS  loans: $LOANS (from $CLIENTS curl clients)  session checks: $CHECKS  member cost: $MEMBER_COST"

rm -f "$OUT"/loans.db* "$OUT"/summary.tsv
STORES=(local "sqlite:$OUT/loans.db")
if command -v redis-server >/dev/null; then
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$OUT/redis.log" 2>&1 &
  REDIS_PID=$!
  deadline=$((SECONDS + 20))
  until (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT" && printf 'PING\r\n' >&3 && read -r -t 1 reply <&3 \
      && [ "${reply%$'\r'}" = "+PONG" ]) 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || { echo "redis-server did not answer:" >&2; tail -5 "$OUT/redis.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "redis: $(redis-server --version | cut -d' ' -f1-3) pid=$REDIS_PID port=$REDIS_PORT"
  STORES+=("redis://127.0.0.1:$REDIS_PORT/0")
else
  echo "redis: SKIPPED, redis-server is not installed (apt-get install redis-server)"
fi
echo

# loans LABEL: LOANS /loan requests from CLIENTS curl processes, one connection each; "pid counter" per answer.
loans() {
  local label="$1" c n
  for c in $(seq "$CLIENTS"); do
    n=$((LOANS / CLIENTS + (c <= LOANS % CLIENTS ? 1 : 0)))
    for _ in $(seq "$n"); do printf 'url = "http://127.0.0.1:%s/loan"\n' "$PORT"; done >"$OUT/$label-loans.curlrc.$c"
    curl -s -K "$OUT/$label-loans.curlrc.$c" -H 'Connection: close' --max-time 10 -w '\n' >"$OUT/$label-loans.$c" &
    LOAD_PIDS+=($!)
  done
  for c in "${LOAD_PIDS[@]}"; do wait "$c" || true; done
  LOAD_PIDS=()
  cat "$OUT/$label-loans".[0-9]* | sed -n 's/.*"pid":\([0-9]*\),"loanCounter":\([0-9]*\).*/\1 \2/p' >"$OUT/$label-loans.txt"
  rm -f "$OUT/$label-loans".[0-9]* "$OUT/$label-loans.curlrc".*
}

# statuses LABEL: asks /status until every worker has answered once; "pid loanCounter" per worker.
statuses() {
  local label="$1"
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
  local label="$1" token
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

for store in "${STORES[@]}"; do
  label=${store%%:*}
  echo "--- store $store ---"
  start_cluster "$OUT/$label-cluster.log" --workers "$WORKERS" --port "$PORT" --store "$store" \
    --member-cost "$MEMBER_COST"
  loans "$label"
  statuses "$label"
  sessions "$label"
  stop_cluster
  PRIMARY=""

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
echo "# verdicts"
while IFS=$'\t' read -r label store answered distinct counts ok unknown; do
  workers_seen=$(tr ',' '\n' <<<"$counts" | wc -l)
  if [ "$label" = local ]; then
    sum=$(tr ',' '\n' <<<"$counts" | awk '{ s += $1 } END { print s + 0 }')
    below=$(tr ',' '\n' <<<"$counts" | awk -v n="$LOANS" '$1 < n' | wc -l)
    if [ "$answered" -eq "$LOANS" ] && [ "$workers_seen" -eq "$WORKERS" ] && [ "$below" -eq "$WORKERS" ] \
        && [ "$sum" -eq "$LOANS" ]; then
      echo "PASS local: counters diverge, workers report $counts after $LOANS loans; none knows the total (they add up to $sum)"
    else
      echo "FAIL local: counters diverge: answered $answered, workers report $counts (sum $sum)"
    fi
    # 30 checks, each on a worker chosen by the connection's hash: 401 in about 2 of 3 (binomial mean 20, sd 2.6).
    if [ "$unknown" -ge $((CHECKS * 4 / 10)) ] && [ "$unknown" -le $((CHECKS * 9 / 10)) ] && [ $((ok + unknown)) -eq "$CHECKS" ]; then
      echo "PASS local: about two thirds of session checks fail, $unknown of $CHECKS answered 401 (only the login's worker knows the session)"
    else
      echo "FAIL local: about two thirds of session checks fail: $unknown of $CHECKS answered 401, $ok answered 200"
    fi
  else
    exact=$(tr ',' '\n' <<<"$counts" | awk -v n="$LOANS" '$1 != n' | wc -l)
    if [ "$answered" -eq "$LOANS" ] && [ "$distinct" -eq "$LOANS" ] && [ "$workers_seen" -eq "$WORKERS" ] && [ "$exact" -eq 0 ]; then
      echo "PASS $label: exact, all $WORKERS workers report $LOANS after $LOANS loans, and the answers carried $distinct distinct counts"
    else
      echo "FAIL $label: exact count: answered $answered, distinct $distinct, workers report $counts (expected $LOANS each)"
    fi
    if [ "$ok" -eq "$CHECKS" ]; then
      echo "PASS $label: no session check fails, $ok of $CHECKS answered 200 on every worker"
    else
      echo "FAIL $label: no session check fails: $unknown of $CHECKS answered 401"
    fi
  fi
done <"$OUT/summary.tsv"
grep -q redis "$OUT/summary.tsv" || echo "SKIP redis: redis-server is not installed"

# --- JSON and chart -------------------------------------------------------------------------------------------------
awk -F'\t' -v loans="$LOANS" -v checks="$CHECKS" -v workers="$WORKERS" '
  BEGIN { printf "{\"loans\":%d,\"sessionChecks\":%d,\"workers\":%d,\"stores\":[", loans, checks, workers }
  { printf "%s{\"store\":\"%s\",\"uri\":\"%s\",\"answered\":%d,\"distinctCounts\":%d,\"statusPerWorker\":[%s],\"session200\":%d,\"session401\":%d}",
      (NR > 1 ? "," : ""), $1, $2, $3, $4, $5, $6, $7 }
  END { print "]}" }' "$OUT/summary.tsv" >"$OUT/results.json"
# Left: each worker's /status after LOANS loans (the dashed line is LOANS). Right: session checks, 200 vs 401.
awk -F'\t' -v loans="$LOANS" -v checks="$CHECKS" '
  BEGIN { scale = 200 / loans; printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">\n", 300
          printf "<text x=\"10\" y=\"20\">/status per worker after %d loans</text><text x=\"360\" y=\"20\">%d session checks after one login</text>\n", loans, checks }
  { x = 20 + (NR - 1) * 105; n = split($5, c, ",")
    for (i = 1; i <= n; i++) { h = c[i] * scale
      printf "<rect x=\"%d\" y=\"%d\" width=\"26\" height=\"%d\" fill=\"#4a7ab5\"/><text x=\"%d\" y=\"%d\" font-size=\"10\">%d</text>\n", x + (i - 1) * 30, 250 - h, h, x + (i - 1) * 30, 246 - h, c[i] }
    printf "<text x=\"%d\" y=\"270\">%s</text>\n", x, $1
    sx = 360 + (NR - 1) * 90; okh = $6 * 200 / checks; bad = $7 * 200 / checks
    printf "<rect x=\"%d\" y=\"%d\" width=\"40\" height=\"%d\" fill=\"#5a9e5a\"/><rect x=\"%d\" y=\"%d\" width=\"40\" height=\"%d\" fill=\"#c0504d\"/>\n", sx, 250 - okh, okh, sx, 250 - okh - bad, bad
    printf "<text x=\"%d\" y=\"270\">%s</text><text x=\"%d\" y=\"285\" font-size=\"10\">%d ok / %d 401</text>\n", sx, $1, sx, $6, $7 }
  END { printf "<line x1=\"15\" y1=\"50\" x2=\"340\" y2=\"50\" stroke=\"#999\" stroke-dasharray=\"4\"/></svg>\n" }' \
  "$OUT/summary.tsv" >"$OUT/shared-store.svg"
echo "json: $OUT/results.json   chart: $OUT/shared-store.svg"
