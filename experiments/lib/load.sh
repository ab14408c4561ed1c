# shellcheck shell=bash
# curl clients with a new connection per request ("Connection: close"): what a cluster's kernel spreads over its
# workers, and what sees every refused or reset connection during a fault. Part of experiments/lib (source init.sh).
# curl_requests and curl_clients send a fixed number of requests and keep the answers; start_curl_load is a bounded
# load in the background that keeps only each request's status; start_timed_load is a load in the background, a curl
# process per request, that keeps each request's times and answer and stops after the requests in flight.

LOAD_PIDS=()
TIMED_PIDS=()

# _curl_urls N URL [OUTPUT]: a curl config (for -K) that requests URL N times, each answer to OUTPUT when given.
_curl_urls() {
  awk -v n="$1" -v url="$2" -v out="${3:-}" \
    'BEGIN { for (i = 0; i < n; i++) { printf "url = \"%s\"\n", url; if (out != "") printf "output = \"%s\"\n", out } }'
}

# curl_requests N URL [CURL_OPTION...]: N requests to URL from one curl process, one after another, each on a new
# connection; prints each answer's body and a newline (a -w FORMAT among the CURL_OPTIONs replaces the newline: curl
# keeps the last -w). A request that fails prints only that, and curl_requests never fails.
curl_requests() {
  local n=$1 url=$2
  shift 2
  _curl_urls "$n" "$url" | curl -s -K - -H 'Connection: close' -w '\n' "$@" || true
}

# curl_clients PREFIX CLIENTS N URL [CURL_OPTION...]: N requests to URL from CLIENTS curl_requests at once (the first
# N % CLIENTS send one more than the others); waits until all are done. Client C's answers are in PREFIX.C.
curl_clients() {
  local prefix=$1 clients=$2 n=$3 url=$4 c pids=()
  shift 4
  for c in $(seq "$clients"); do
    start_bg "$prefix.$c" curl_requests $((n / clients + (c <= n % clients ? 1 : 0))) "$url" "$@"
    pids+=("$BG_PID")
  done
  for c in "${pids[@]}"; do wait_pid "$c" || true; done
}

# ask_each_worker WORKERS URL FILE [CURL_OPTION...]: requests URL (curl_requests, one at a time) until answers from
# WORKERS distinct pids ("pid":N) are in FILE, 60 requests at most; appends each answer to FILE as a line.
ask_each_worker() {
  local workers=$1 url=$2 file=$3
  shift 3
  for _ in $(seq 60); do
    curl_requests 1 "$url" "$@" >>"$file"
    if [ "$(grep -o '"pid":[0-9]*' "$file" | sort -u | wc -l)" -ge "$workers" ]; then break; fi
  done
}

# start_curl_load PREFIX CLIENTS URL [MAX] [keep-alive]: starts CLIENTS curl processes, each requesting URL at most MAX
# (LOAD_MAX, default 20000) times, one connection per request ("Connection: close", 10 s at most each), or with
# "keep-alive" on one connection kept open, as a browser does: curl opens a new one when an answer says "Connection:
# close", and sends a request again on a new connection when the reused one ended before any byte of an answer (RFC
# 9112 9.3.1). Adds their pids to LOAD_PIDS. Client N writes one line per request to PREFIX.N: the status code ("000":
# no response) and curl's exit code (7 refused, 28 timed out, 52 empty reply, 56 reset).
start_curl_load() {
  local prefix=$1 clients=$2 url=$3 max=${4:-${LOAD_MAX:-20000}} config="$1.curlrc" c close=(-H 'Connection: close')
  [ "${5:-}" != keep-alive ] || close=()
  _curl_urls "$max" "$url" /dev/null >"$config"
  for c in $(seq "$clients"); do
    # The codes go to stderr, which is unbuffered: stop_curl_load kills curl, and a buffered stdout would lose
    # its tail.
    start_bg "$prefix.$c" curl -s -K "$config" "${close[@]}" --max-time 10 \
      -w '%{stderr}%{http_code} %{exitcode}\n'
    LOAD_PIDS+=("$BG_PID")
  done
}

# stop_curl_load: stops the clients of every start_curl_load since the last stop.
stop_curl_load() {
  stop_pids "${LOAD_PIDS[@]}"
  LOAD_PIDS=()
}

# _load_lines PREFIX: the lines of PREFIX.N, each file's last line left out when it has no newline: a curl that
# stop_curl_load killed while it wrote it. (cat alone would join it to the next file's first line: "000 7200 0".)
_load_lines() {
  local f
  for f in "$1".[0-9]*; do
    if [ -n "$(tail -c1 "$f")" ]; then sed '$d' "$f"; else cat "$f"; fi
  done
}

# load_counts PREFIX: "OK FAILED", the requests of PREFIX.N answered 200 and the others.
load_counts() {
  _load_lines "$1" | awk 'NF < 2 { next } $1 == "200" { ok++ } $1 != "200" { bad++ } END { printf "%d %d\n", ok, bad }'
}

# load_failures PREFIX: the failed requests of PREFIX.N as "CODE/curl-exit-EXIT:COUNT ...", or "none".
load_failures() {
  local f
  f=$(_load_lines "$1" |
    awk 'NF < 2 { next } $1 != "200" { n[$1 "/curl-exit-" $2]++ } END { for (k in n) printf "%s:%d ", k, n[k] }')
  echo "${f:-none}"
}

# timed_client URL STOPFILE MAX [CURL_OPTION...]: requests URL on a new connection each (10 s at most each) until
# STOPFILE exists or MAX requests were sent; one line per request: "START_S END_S HTTP_CODE CURL_EXIT BODY" (epoch
# seconds; 000 and a curl exit code: no answer).
timed_client() {
  local url=$1 stop=$2 max=$3 i=0 t0 r
  shift 3
  while [ ! -e "$stop" ] && [ "$i" -lt "$max" ]; do
    t0=$EPOCHREALTIME
    r=$(curl -s --max-time 10 -H 'Connection: close' -w '\n%{http_code} %{exitcode}' "$@" "$url" 2>/dev/null) || true
    echo "$t0 $EPOCHREALTIME ${r##*$'\n'} ${r%$'\n'*}"
    i=$((i + 1))
  done
}

# start_timed_load PREFIX CLIENTS URL [MAX]: starts CLIENTS timed_clients on URL, each stopping at PREFIX.stop or after
# MAX (1000000) requests; client C writes to PREFIX.C. Adds them to TIMED_PIDS: several loads may run at once.
start_timed_load() {
  local c
  rm -f "$1.stop"
  for c in $(seq "$2"); do
    start_bg "$1.$c" timed_client "$3" "$1.stop" "${4:-1000000}"
    TIMED_PIDS+=("$BG_PID")
  done
}

# stop_timed_load PREFIX...: creates each PREFIX.stop, then waits for every client in TIMED_PIDS to finish its
# request in flight (so that every request sent has its line), and empties TIMED_PIDS.
stop_timed_load() {
  local prefix
  for prefix in "$@"; do touch "$prefix.stop"; done
  await_timed_load
}

# await_timed_load: waits until every client in TIMED_PIDS has stopped (a load with MAX: sent its requests), and
# empties TIMED_PIDS.
await_timed_load() {
  local pid
  for pid in "${TIMED_PIDS[@]}"; do wait_pid "$pid" || true; done
  TIMED_PIDS=()
}

# timed_counts PREFIX...: "OK FAILED", the requests of every PREFIX.N answered 200 and the others.
timed_counts() {
  local p
  for p in "$@"; do cat "$p".[0-9]*; done | awk '$3 == 200 { ok++ } $3 != 200 { bad++ } END { printf "%d %d\n", ok, bad }'
}

# timed_failures PREFIX: the failed requests of PREFIX.N as "CODE/curl-EXIT[:error] xCOUNT ..." (error: the answer's
# "error" field), or "none".
timed_failures() {
  cat "$1".[0-9]* | awk '$3 != 200 { k = $3 "/curl-" $4
      if (match($0, /"error":"[^"]*"/)) k = k ":" substr($0, RSTART + 9, RLENGTH - 10)
      n[k]++ } END { for (k in n) printf "%s x%d ", k, n[k]; print "" }' | sed 's/ $//;s/^$/none/'
}

# timed_p99_ms PREFIX: the 99th percentile of the requests' times in PREFIX.N, in ms; "-" for none.
timed_p99_ms() {
  cat "$1".[0-9]* | awk '{ printf "%.0f\n", ($2 - $1) * 1000 }' | sort -n |
    awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999); print NR ? v[i < 1 ? 1 : i] : "-" }'
}

# timed_gap_ms PREFIX: the longest time in ms between two answers 200 (by their end) in PREFIX.N.
timed_gap_ms() {
  cat "$1".[0-9]* | awk '$3 == 200 { print $2 }' | sort -n |
    awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { printf "%.0f\n", g * 1000 }'
}

# lost_count PREFIX: the requests of PREFIX.N that reached a server and got no answer: every failure but a refused
# connection (curl exit 7), which no server accepted.
lost_count() {
  _load_lines "$1" | awk 'NF >= 2 && $1 != "200" && $2 != "7" { n++ } END { print n + 0 }'
}
