# shellcheck shell=bash
# curl clients with a new connection per request ("Connection: close"): what a cluster's kernel spreads over its
# workers, and what sees every refused or reset connection during a fault. Part of experiments/lib (source init.sh).
# curl_requests and curl_clients send a fixed number of requests and keep the answers; start_curl_load is a bounded
# load in the background that keeps only each request's status.

LOAD_PIDS=()

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

# start_curl_load PREFIX CLIENTS URL [MAX]: starts CLIENTS curl processes, each requesting URL at most MAX (LOAD_MAX,
# default 20000) times, one connection per request ("Connection: close", 10 s at most each); sets LOAD_PIDS. Client N
# writes one line per request to PREFIX.N: the status code ("000": no response) and curl's exit code (7 refused,
# 28 timed out, 52 empty reply, 56 reset).
start_curl_load() {
  local prefix=$1 clients=$2 url=$3 max=${4:-${LOAD_MAX:-20000}} config="$1.curlrc" c
  _curl_urls "$max" "$url" /dev/null >"$config"
  LOAD_PIDS=()
  for c in $(seq "$clients"); do
    # The codes go to stderr, which is unbuffered: stop_curl_load kills curl, and a buffered stdout would lose
    # its tail.
    start_bg "$prefix.$c" curl -s -K "$config" -H 'Connection: close' --max-time 10 \
      -w '%{stderr}%{http_code} %{exitcode}\n'
    LOAD_PIDS+=("$BG_PID")
  done
}

# stop_curl_load: stops the clients of the last start_curl_load.
stop_curl_load() {
  stop_pids "${LOAD_PIDS[@]}"
  LOAD_PIDS=()
}

# load_counts PREFIX: "OK FAILED", the requests of PREFIX.N answered 200 and the others.
load_counts() {
  cat "$1".[0-9]* | awk '$1 == "200" { ok++ } $1 != "200" { bad++ } END { printf "%d %d\n", ok, bad }'
}

# load_failures PREFIX: the failed requests of PREFIX.N as "CODE/curl-exit-EXIT:COUNT ...", or "none".
load_failures() {
  local f
  f=$(cat "$1".[0-9]* | awk '$1 != "200" { n[$1 "/curl-exit-" $2]++ } END { for (k in n) printf "%s:%d ", k, n[k] }')
  echo "${f:-none}"
}
