# Sourced by the cluster experiments (03, 06): find a JDK, build once, start and stop a cluster, run a bounded
# curl load, and clean up every process by PID. Expects the caller to have cd'ed to the project root and to set
# NAME (results go to experiments/results/$NAME).

OUT="experiments/results/$NAME"
rm -rf "$OUT"
mkdir -p "$OUT"
PRIMARY=""
LOAD_PIDS=()

. "$(dirname "${BASH_SOURCE[0]}")/build.sh"

# A port nothing listens on (connect refused), from a random range.
free_port() {
  local p
  for p in $(shuf -i 20000-60000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# start_cluster LOG ARGS...: starts the primary, waits for "cluster ready" (or fails), sets PRIMARY.
start_cluster() {
  local log="$1"
  shift
  CLUSTER_LOG=$log
  "$JAVA" -jar target/loan-runtime.jar cluster "$@" >"$log" 2>&1 &
  PRIMARY=$!
  local deadline=$((SECONDS + 180))
  until grep -q "^cluster ready" "$log"; do
    if ! kill -0 "$PRIMARY" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "cluster did not become ready:" >&2
      tail -20 "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# Every worker and spare pid a primary log has announced.
announced_workers() {
  sed -n 's/^\(worker [0-9]*\|spare\) started pid=\([0-9]*\)$/\2/p' "$1"
}

# Running (not zombie) pids among the arguments.
running_pids() {
  local p state
  for p in "$@"; do
    state=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null || true)
    if [ -n "$state" ] && [ "$state" != Z ]; then echo "$p"; fi
  done
}

# The primary's live worker pids: its children, less the spares that stand by (they listen only once promoted).
worker_pids() {
  local standing_by
  standing_by=$(sed -n 's/^spare started pid=\([0-9]*\)$/\1/p' "$CLUSTER_LOG" \
    | grep -vx -f <(sed -n 's/^worker [0-9]* is now spare pid=\([0-9]*\)$/\1/p' "$CLUSTER_LOG") || true)
  pgrep -P "$PRIMARY" | sort -n | grep -vx -f <(echo "${standing_by:-none}") || true
}

# pid from a JSON body
json_pid() {
  sed -n 's/.*"pid":\([0-9]*\).*/\1/p'
}

# start_load FILE_PREFIX CLIENTS PATH: each client is one curl process requesting PATH on a new connection
# per request ("Connection: close"), at most LOAD_MAX times, one line per request: the status code ("000" = no
# response) and curl's exit code (7 refused, 28 timed out, 52 empty reply, 56 reset).
start_load() {
  local prefix="$1" clients="$2" path="$3" c
  local config="$OUT/load.curlrc"
  awk -v n="${LOAD_MAX:-20000}" -v url="http://127.0.0.1:$PORT$path" \
    'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", url }' >"$config"
  LOAD_PIDS=()
  for c in $(seq "$clients"); do
    # The codes go to stderr, which is unbuffered: stop_load kills curl, and a buffered stdout would lose its tail.
    curl -s -K "$config" -H 'Connection: close' --max-time 10 -w '%{stderr}%{http_code} %{exitcode}\n' 2>"$prefix.$c" &
    LOAD_PIDS+=($!)
  done
}

stop_load() {
  local p
  for p in "${LOAD_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${LOAD_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  LOAD_PIDS=()
}

# load_counts FILE_PREFIX -> "ok failed"
load_counts() {
  cat "$1".* | awk '$1 == "200" { ok++ } $1 != "200" { bad++ } END { printf "%d %d\n", ok, bad }'
}

# load_failures FILE_PREFIX -> "code/exit:count ..." for the failed requests, or "none"
load_failures() {
  local f
  f=$(cat "$1".* | awk '$1 != "200" { n[$1 "/curl-exit-" $2]++ } END { for (k in n) printf "%s:%d ", k, n[k] }')
  echo "${f:-none}"
}

stop_cluster() {
  [ -n "$PRIMARY" ] || return 0
  kill -TERM "$PRIMARY" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$PRIMARY" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  kill -KILL "$PRIMARY" 2>/dev/null || true
  wait "$PRIMARY" 2>/dev/null || true
}

# On exit: the load, the primary, and every worker any of our logs announced, by PID.
cleanup_all() {
  stop_load
  stop_cluster
  local log p
  for log in "$OUT"/*.log; do
    [ -f "$log" ] || continue
    for p in $(announced_workers "$log"); do
      if [ -n "$(running_pids "$p")" ] && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q loan-runtime; then
        kill -KILL "$p" 2>/dev/null || true
      fi
    done
  done
}

print_config() {
  echo "# configuration"
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
  echo "java: $JAVA"
  "$JAVA" -version 2>&1 | sed 's/^/  /'
  echo "port: $PORT"
  echo "results: $OUT"
}
