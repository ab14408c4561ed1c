# shellcheck shell=bash
# A bounded load of curl processes with a new connection per request: what a cluster's kernel spreads over its
# workers, and what sees every refused or reset connection during a fault. Part of experiments/lib (source init.sh).

LOAD_PIDS=()

# start_curl_load PREFIX CLIENTS URL [MAX]: starts CLIENTS curl processes, each requesting URL at most MAX (LOAD_MAX,
# default 20000) times, one connection per request ("Connection: close", 10 s at most each); sets LOAD_PIDS. Client N
# writes one line per request to PREFIX.N: the status code ("000": no response) and curl's exit code (7 refused,
# 28 timed out, 52 empty reply, 56 reset).
start_curl_load() {
  local prefix=$1 clients=$2 url=$3 max=${4:-${LOAD_MAX:-20000}} config="$1.curlrc" c
  awk -v n="$max" -v url="$url" \
    'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", url }' >"$config"
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
