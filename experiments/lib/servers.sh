# shellcheck shell=bash
# Servers, clusters, the peers of experiments/peers/ and Redis, each started with start_bg (so stopped by PID at
# exit) and awaited until it says it serves. Part of experiments/lib (source init.sh).
#
# A server's start-up line names its address, "... serving pid=N address=http://127.0.0.1:PORT ..." (the project's
# `serve` and both peers print it): the servers here bind port 0, and the line says which port they got.

# shellcheck disable=SC2034 # set by the functions below, read by the scripts
SERVER_PID="" SERVER_URL="" PRIMARY="" CLUSTER_LOG="" REDIS_PID="" REDIS_PORT="" REDIS_URL=""

# _server_options "$@": splits the leading --cpu CPUS and --jvm FLAG (repeatable) off the arguments: sets _PREFIX
# (taskset -c CPUS, or nothing), _JVM (the flags) and _SHIFT (how many arguments they were).
_server_options() {
  _PREFIX=()
  _JVM=()
  _SHIFT=0
  while [ $# -gt 0 ]; do
    case $1 in
      --cpu) _PREFIX=(taskset -c "$2") ;;
      --jvm) _JVM+=("$2") ;;
      --) _SHIFT=$((_SHIFT + 1)); return 0 ;;
      *) return 0 ;;
    esac
    shift 2
    _SHIFT=$((_SHIFT + 2))
  done
}

# _await_serving LOG: waits for the start-up line of the server just started (BG_PID) in LOG; sets SERVER_PID and
# SERVER_URL.
_await_serving() {
  SERVER_PID=$BG_PID
  await_line "$1" 'address=http://' "$SERVER_PID"
  SERVER_URL=$(grep -o 'address=http://[^ ]*' "$1" | head -1 | cut -d= -f2)
}

# start_server LOG [--cpu CPUS] [--jvm FLAG]... [--] [SERVE_OPTION...]: starts the project's `serve --port 0
# SERVE_OPTION...`, with `taskset -c CPUS` before it and each FLAG before -jar, output to LOG; waits for its start-up
# line and sets SERVER_PID and SERVER_URL (http://127.0.0.1:PORT).
start_server() {
  local log=$1
  shift
  _server_options "$@"
  shift "$_SHIFT"
  start_bg "$log" "${_PREFIX[@]}" "$JAVA" "${_JVM[@]}" -jar "$JAR" serve --port 0 "$@"
  _await_serving "$log"
}

# start_peer bare|node LOG [--cpu CPUS] [--jvm FLAG]... [NAME=VALUE...]: starts a peer of experiments/peers/ on port
# 0, like start_server: bare is BareHelidon.java (the same bytes from byte arrays, on the project's Helidon; the
# FLAGs go to its JVM), node is loan-peer.js (the NAME=VALUEs go to its environment, e.g. UV_THREADPOOL_SIZE=2).
start_peer() {
  local kind=$1 log=$2
  shift 2
  _server_options "$@"
  shift "$_SHIFT"
  case $kind in
    bare) start_bg "$log" "${_PREFIX[@]}" "$JAVA" "${_JVM[@]}" -cp "$JAR:target/libs/*" \
         experiments/peers/BareHelidon.java 0 ;;
    node) start_bg "$log" "${_PREFIX[@]}" env "$@" node experiments/peers/loan-peer.js --port 0 ;;
    *) echo "start_peer: unknown peer '$kind' (bare or node)" >&2; exit 2 ;;
  esac
  _await_serving "$log"
}

# stop_server PID [SIGNAL]: stops a server (e.g. "$SERVER_PID") with SIGNAL (TERM: a graceful stop), SIGKILL after
# 15 s. Give KILL for a server still busy with derivations: a graceful stop would wait for them.
stop_server() {
  stop_pid "$1" "${2:-TERM}"
}

# start_cluster LOG [--jvm FLAG]... CLUSTER_OPTION...: starts the project's `cluster CLUSTER_OPTION...` (give it
# --port: workers share a fixed port), output to LOG; waits (180 s) for its "cluster ready" line and sets PRIMARY and
# CLUSTER_LOG. At exit the primary is stopped first, then every process of ours that LOG names and that still runs
# (kill_logged_pids): the workers of a primary that was killed.
start_cluster() {
  local log=$1
  shift
  _server_options "$@"
  shift "$_SHIFT"
  CLUSTER_LOG=$log
  on_exit kill_logged_pids "$log"
  start_bg "$log" "$JAVA" "${_JVM[@]}" -jar "$JAR" cluster "$@"
  PRIMARY=$BG_PID
  await_line "$log" '^cluster ready' "$PRIMARY"
}

# stop_cluster: SIGTERM to PRIMARY (which stops its workers), SIGKILL after 30 s; then PRIMARY is empty. Does nothing
# when PRIMARY is empty.
stop_cluster() {
  [ -n "${PRIMARY:-}" ] || return 0
  stop_pid "$PRIMARY" TERM 30
  PRIMARY=""
}

# announced_workers LOG: every worker and spare pid the primary's LOG announced as started, one a line.
announced_workers() {
  sed -n 's/^\(worker [0-9]*\|spare\) started pid=\([0-9]*\)$/\2/p' "$1"
}

# restarts_done LOG: how many rolling restarts the primary's LOG reports finished ("rolling restart done" lines).
restarts_done() {
  grep -c '^rolling restart done' "$1" || true
}

# worker_pids: the live worker pids of PRIMARY, one a line, sorted: its children, less the spares that stand by (they
# listen only once promoted).
worker_pids() {
  local standing_by
  standing_by=$(sed -n 's/^spare started pid=\([0-9]*\)$/\1/p' "$CLUSTER_LOG" \
    | grep -vx -f <(sed -n 's/^worker [0-9]* is now spare pid=\([0-9]*\)$/\1/p' "$CLUSTER_LOG") || true)
  pgrep -P "$PRIMARY" | sort -n | grep -vx -f <(echo "${standing_by:-none}") || true
}

# kill_logged_pids LOG: SIGKILL to every process that LOG names as pid=N, still runs and is one of ours (its command
# line names loan-runtime, loan-peer or BareHelidon): the workers a dead primary could not take along.
kill_logged_pids() {
  local pid
  [ -f "$1" ] || return 0
  while read -r pid; do
    if is_running "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
        | grep -q 'loan-runtime\|loan-peer\|BareHelidon'; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done < <(grep -o 'pid=[0-9]*' "$1" | cut -d= -f2 | sort -un)
}

# redis_answers HOST PORT: status 0 when a Redis server at HOST:PORT answers PING with PONG (within 2 s).
redis_answers() {
  (exec 3<>"/dev/tcp/$1/$2" && printf 'PING\r\n' >&3 && read -r -t 2 reply <&3 && [ "${reply%$'\r'}" = "+PONG" ]) \
    2>/dev/null
}

# start_redis DIR: starts redis-server on a free port of 127.0.0.1, without persistence, its files and redis.log in
# DIR; waits (20 s) until it answers PING and sets REDIS_PID, REDIS_PORT and REDIS_URL (redis://127.0.0.1:PORT).
start_redis() {
  local dir=$1
  REDIS_PORT=$(free_port)
  start_bg "$dir/redis.log" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$dir" --daemonize no
  REDIS_PID=$BG_PID
  REDIS_URL=redis://127.0.0.1:$REDIS_PORT
  if ! wait_until 20 redis_answers 127.0.0.1 "$REDIS_PORT"; then
    echo "redis-server on port $REDIS_PORT did not answer PING within 20 s:" >&2
    tail -5 "$dir/redis.log" >&2
    exit 1
  fi
}
