# shellcheck shell=bash
# Servers, clusters, the peers of experiments/peers/, Redis (alone, or a master, its replica and Sentinels) and
# HAProxy, each started with start_bg (so stopped by PID at exit) and, but for HAProxy, awaited until it serves. Part
# of experiments/lib (source init.sh).
#
# A server's start-up line names its address, "... serving pid=N address=http://127.0.0.1:PORT ..." (the project's
# `serve` and both peers print it): the servers here bind port 0, and the line says which port they got.

# shellcheck disable=SC2034 # set by the functions below, read by the scripts
SERVER_PID="" SERVER_URL="" PRIMARY="" CLUSTER_LOG="" REDIS_PID="" REDIS_PORT="" REDIS_URL=""
# shellcheck disable=SC2034 # likewise, for start_redis_failover and start_haproxy
REDIS_MASTER_PID="" REDIS_MASTER_PORT="" REDIS_REPLICA_PID="" REDIS_REPLICA_PORT="" SENTINEL_PORTS=() SENTINEL_STORE=""
LB_URL="" STATS_URL="" POSTGRES_PID="" POSTGRES_PORT="" POSTGRES_STORE="" POSTGRES_PASSWORD=""
_REDIS_NAME="" _REDIS_PASSWORD="" _SENTINEL_PASSWORD=""

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
  await_line "$1" "$LINE_SERVING" "$SERVER_PID"
  SERVER_URL=$(serving_url "$1")
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

# start_peer bare|node|netty LOG [--cpu CPUS] [--jvm FLAG]... [ARG...]: starts a peer of experiments/peers/ on port
# 0, like start_server: bare is BareHelidon.java (the same bytes from byte arrays, on the project's Helidon; the
# FLAGs go to its JVM), node is loan-peer.js (an ARG NAME=VALUE goes to its environment, e.g. UV_THREADPOOL_SIZE=2, any
# other to the peer, e.g. --shed-delay-ms 50),
# netty is NettyPeer.java (Netty 4.2 on event loops, from target/netty-libs, which netty_libs makes; the FLAGs go to its
# JVM, the ARGs to the peer, e.g. --loops 2).
start_peer() {
  local kind=$1 log=$2
  shift 2
  _server_options "$@"
  shift "$_SHIFT"
  case $kind in
    bare) start_bg "$log" "${_PREFIX[@]}" "$JAVA" "${_JVM[@]}" -cp "$JAR:target/libs/*" \
         experiments/peers/BareHelidon.java 0 ;;
    node) local arg env=() peer=()
      for arg in "$@"; do if [[ $arg =~ ^[A-Z_][A-Z0-9_]*= ]]; then env+=("$arg"); else peer+=("$arg"); fi; done
      start_bg "$log" "${_PREFIX[@]}" env "${env[@]}" node experiments/peers/loan-peer.js --port 0 "${peer[@]}" ;;
    netty) netty_libs
      start_bg "$log" "${_PREFIX[@]}" "$JAVA" --enable-native-access=ALL-UNNAMED "${_JVM[@]}" \
        -cp "$NETTY_LIBS/*:$JAR:target/libs/*" experiments/peers/NettyPeer.java --port 0 "$@" ;;
    *) echo "start_peer: unknown peer '$kind' (bare, node or netty)" >&2; exit 2 ;;
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
  await_line "$log" "$LINE_CLUSTER_READY" "$PRIMARY"
}

# stop_cluster: SIGTERM to PRIMARY (which stops its workers), SIGKILL after 30 s; then PRIMARY is empty. Does nothing
# when PRIMARY is empty.
stop_cluster() {
  [ -n "${PRIMARY:-}" ] || return 0
  stop_pid "$PRIMARY" TERM 30
  PRIMARY=""
}

# worker_pids: the live worker pids of PRIMARY, one a line, sorted: its children, less the spares that stand by (they
# listen only once promoted).
worker_pids() {
  pgrep -P "$PRIMARY" | sort -n | grep -vx -f <(spares_standing_by "$CLUSTER_LOG"; echo none) || true
}

# kill_logged_pids LOG: SIGKILL to every process that LOG names as pid=N, still runs and is one of ours (its command
# line names loan-runtime, loan-peer or BareHelidon): the workers a dead primary could not take along.
kill_logged_pids() {
  local pid
  [ -f "$1" ] || return 0
  while read -r pid; do
    if is_running "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
        | grep -q 'loan-runtime\|loan-peer\|BareHelidon\|NettyPeer'; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done < <(grep -o 'pid=[0-9]*' "$1" | cut -d= -f2 | sort -un)
}

# redis_answers HOST PORT [PASSWORD]: status 0 when a Redis server at HOST:PORT answers PING with PONG (within 2 s),
# after AUTH PASSWORD when one is given.
redis_answers() {
  (
    exec 3<>"/dev/tcp/$1/$2" || exit 1
    if [ -n "${3:-}" ]; then
      # shellcheck disable=SC2016 # the $ are RESP's: AUTH as an array of bulk strings, whatever PASSWORD holds
      printf '*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n' "${#3}" "$3" >&3
      read -r -t 2 reply <&3 && [ "${reply%$'\r'}" = "+OK" ] || exit 1
    fi
    printf 'PING\r\n' >&3 && read -r -t 2 reply <&3 && [ "${reply%$'\r'}" = "+PONG" ]
  ) 2>/dev/null
}

# start_redis DIR [--port PORT] [--password PASSWORD] [REDIS_OPTION...]: starts redis-server on 127.0.0.1 at PORT (a
# free port when not given), without persistence, its files in DIR (dump-PORT.rdb, which a replica writes when it
# syncs) and its output in DIR/redis-PORT.log. With PASSWORD, clients and replicas need it (requirepass, and
# masterauth for its own replication). The REDIS_OPTIONs come last (e.g. --replicaof 127.0.0.1 PORT). Waits (20 s)
# until it answers PING and sets REDIS_PID, REDIS_PORT and REDIS_URL (redis://127.0.0.1:PORT).
start_redis() {
  local dir=$1 password="" auth=()
  shift
  REDIS_PORT=""
  while [ $# -gt 0 ]; do
    case $1 in
      --port) REDIS_PORT=$2 ;;
      --password) password=$2; auth=(--requirepass "$2" --masterauth "$2") ;;
      *) break ;;
    esac
    shift 2
  done
  REDIS_PORT=${REDIS_PORT:-$(free_port)}
  start_bg "$dir/redis-$REDIS_PORT.log" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' \
    --appendonly no --dir "$dir" --dbfilename "dump-$REDIS_PORT.rdb" --daemonize no "${auth[@]}" "$@"
  REDIS_PID=$BG_PID
  REDIS_URL=redis://127.0.0.1:$REDIS_PORT
  if ! wait_until 20 redis_answers 127.0.0.1 "$REDIS_PORT" "$password"; then
    echo "redis-server on port $REDIS_PORT did not answer PING within 20 s:" >&2
    tail -5 "$dir/redis-$REDIS_PORT.log" >&2
    exit 1
  fi
}

# start_redis_failover DIR NAME PASSWORD SENTINEL_PASSWORD: a Redis master and its replica (start_redis --password
# PASSWORD) and three Sentinels that watch them as NAME (quorum 2, the master down after 1 s, a failover timeout of
# 2 s; SENTINEL_PASSWORD for clients of the Sentinels and between them), all on free ports of 127.0.0.1, their files
# and output in DIR. Waits (60 s each) until the replica is in sync and every Sentinel sees the master, its replica
# and the two other Sentinels, else exits 1. Sets REDIS_MASTER_PID, REDIS_MASTER_PORT, REDIS_REPLICA_PID,
# REDIS_REPLICA_PORT, SENTINEL_PORTS (an array) and SENTINEL_STORE (the project's --store for them:
# redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/NAME).
start_redis_failover() {
  local dir=$1 i s sentinels
  _REDIS_NAME=$2 _REDIS_PASSWORD=$3 _SENTINEL_PASSWORD=$4
  start_redis "$dir" --password "$_REDIS_PASSWORD"
  REDIS_MASTER_PID=$REDIS_PID REDIS_MASTER_PORT=$REDIS_PORT
  start_redis "$dir" --password "$_REDIS_PASSWORD" --replicaof 127.0.0.1 "$REDIS_MASTER_PORT"
  REDIS_REPLICA_PID=$REDIS_PID REDIS_REPLICA_PORT=$REDIS_PORT
  SENTINEL_PORTS=()
  for i in 1 2 3; do
    s=$(free_port)
    SENTINEL_PORTS+=("$s")
    printf '%s\n' "port $s" "bind 127.0.0.1" "daemonize no" "dir $dir" "requirepass $_SENTINEL_PASSWORD" \
      "sentinel sentinel-pass $_SENTINEL_PASSWORD" "sentinel monitor $_REDIS_NAME 127.0.0.1 $REDIS_MASTER_PORT 2" \
      "sentinel auth-pass $_REDIS_NAME $_REDIS_PASSWORD" "sentinel down-after-milliseconds $_REDIS_NAME 1000" \
      "sentinel failover-timeout $_REDIS_NAME 2000" >"$dir/sentinel-$i.conf"
    start_bg "$dir/sentinel-$i.log" redis-sentinel "$dir/sentinel-$i.conf"
  done
  wait_until 60 replica_in_sync "$REDIS_REPLICA_PORT" || { echo "the replica did not sync" >&2; exit 1; }
  wait_until 60 sentinels_ready || { echo "the Sentinels do not see each other" >&2; exit 1; }
  sentinels=$(printf '127.0.0.1:%s,' "${SENTINEL_PORTS[@]}")
  SENTINEL_STORE="redis-sentinel://${sentinels%,}/$_REDIS_NAME"
}

# redis_cli PORT ARG...: redis-cli ARG... against the data node at 127.0.0.1:PORT of start_redis_failover.
redis_cli() {
  local port=$1
  shift
  redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning -a "$_REDIS_PASSWORD" "$@" 2>/dev/null
}

# sentinel_cli PORT ARG...: redis-cli ARG... against the Sentinel at 127.0.0.1:PORT of start_redis_failover.
sentinel_cli() {
  local port=$1
  shift
  redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning -a "$_SENTINEL_PASSWORD" "$@" 2>/dev/null
}

# replica_in_sync PORT: status 0 when the data node at PORT is a replica whose link to its master is up.
replica_in_sync() {
  redis_cli "$1" info replication | grep -q 'master_link_status:up'
}

# sentinels_ready: status 0 when every Sentinel of start_redis_failover sees the master up, one replica and three
# Sentinels.
sentinels_ready() {
  local s
  for s in "${SENTINEL_PORTS[@]}"; do
    sentinel_cli "$s" info sentinel | grep 'master0:' | grep 'status=ok' | grep 'slaves=1' | grep -q 'sentinels=3' \
      || return 1
  done
}

# sentinel_master_port: the port of the master that the first Sentinel names now.
sentinel_master_port() {
  sentinel_cli "${SENTINEL_PORTS[0]}" sentinel get-master-addr-by-name "$_REDIS_NAME" | tail -1
}

# start_haproxy LOG CONFIG SERVICE_PORT: starts HAProxy in the foreground (-db) with CONFIG, deploy/haproxy.cfg or one
# made from it, output to LOG: its front end and its stats page on free ports of 127.0.0.1 (LOAN_LB_BIND,
# LOAN_LB_STATS_BIND), its hosts on SERVICE_PORT (LOAN_SERVICE_PORT). Sets LB_URL and STATS_URL (the stats page as
# CSV). It does not wait for the hosts: wait_until haproxy_up does.
start_haproxy() {
  local front stats
  front=$(free_port)
  stats=$(free_port)
  start_bg "$1" env LOAN_LB_BIND="127.0.0.1:$front" LOAN_LB_STATS_BIND="127.0.0.1:$stats" LOAN_SERVICE_PORT="$3" \
    haproxy -db -f "$2"
  LB_URL=http://127.0.0.1:$front
  STATS_URL=http://127.0.0.1:$stats/haproxy-stats\;csv
}

# haproxy_up STATS_URL COUNT: status 0 when the stats page at STATS_URL shows COUNT servers (host...) of the backend
# "hosts" UP.
haproxy_up() {
  curl -s --max-time 1 "$1" \
    | awk -F, -v count="$2" '$1 == "hosts" && $2 ~ /^host/ && $18 == "UP" { n++ } END { exit n != count }'
}

# start_postgres DIR: a PostgreSQL server of this script's own in DIR/pg, on a free port of 127.0.0.1, started as
# the Java tests start theirs (experiments/lib/postgres-server: as the postgres user when root, fsync off: the figures
# are about waiting, not disks; POSTGRES_PID is the server's), with a database "loans". Waits (30 s) until it
# answers; sets POSTGRES_PID, POSTGRES_PORT, POSTGRES_PASSWORD (export it as LOAN_STORE_PASSWORD for the servers)
# and POSTGRES_STORE (postgresql://postgres@127.0.0.1:PORT/loans).
start_postgres() {
  local dir=$1
  POSTGRES_PASSWORD=loan-experiment-pw
  experiments/lib/postgres-server init "$dir/pg" "$POSTGRES_PASSWORD" || exit 1
  POSTGRES_PORT=$(free_port)
  start_bg "$dir/pg/postgres.log" experiments/lib/postgres-server run "$dir/pg" "$POSTGRES_PORT"
  POSTGRES_PID=$BG_PID
  if ! wait_until 30 env PGPASSWORD="$POSTGRES_PASSWORD" psql -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -d postgres -qtAc \
      'SELECT 1' > /dev/null 2>&1; then
    echo "start_postgres: postgres did not answer on port $POSTGRES_PORT within 30 s:" >&2
    tail -5 "$dir/pg/postgres.log" >&2
    exit 1
  fi
  PGPASSWORD="$POSTGRES_PASSWORD" psql -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -d postgres -qtAc 'CREATE DATABASE loans' \
    > /dev/null
  POSTGRES_STORE=postgresql://postgres@127.0.0.1:$POSTGRES_PORT/loans
}
