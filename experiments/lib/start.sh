# Sourced by 07-worker-start.sh and by any script that needs start-up figures (bench.sh). Needs bash 5
# ($EPOCHREALTIME). Both functions print one integer of milliseconds on stdout and nothing else there; they fail
# (status 1, a reason on stderr) when the deadline (START_DEADLINE_S, default 120 s) passes first. URL is
# http://HOST:PORT/PATH. Polls use bash's own /dev/tcp, read and printf, never a new process: on a busy 2-core
# machine a fork per poll (curl, sed) costs tens to hundreds of ms, which would be measured along.

START_POLL_S=${START_POLL_S:-0.005}

_start_now_ms() {
  local t=${EPOCHREALTIME/./}
  echo $((t / 1000))
}

# A wait without a process: read with a timeout on a pipe that never gets data.
_start_sleep() {
  [ -n "${_START_SLEEP_FD:-}" ] || exec {_START_SLEEP_FD}<> <(:)
  read -r -t "$START_POLL_S" -u "$_START_SLEEP_FD" _ || true
}

# _start_get URL: one GET on a new connection; sets START_STATUS (000: no answer) and START_BODY.
_start_get() {
  local rest=${1#http://} hostport path fd line len=0
  hostport=${rest%%/*}
  path=/${rest#*/}
  START_STATUS=000
  START_BODY=""
  { exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null || return 0
  printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$hostport" >&"$fd" 2>/dev/null || true
  if read -r -t 5 -u "$fd" line 2>/dev/null; then
    START_STATUS=${line:9:3}
    while read -r -t 5 -u "$fd" line 2>/dev/null && [ -n "${line%$'\r'}" ]; do
      case "${line,,}" in content-length:*) len=${line//[!0-9]/} ;; esac
    done
    if [ "$len" -gt 0 ]; then
      read -r -t 5 -N "$len" -u "$fd" START_BODY 2>/dev/null || true
    else
      while read -r -t 5 -u "$fd" line 2>/dev/null && [ "${line%$'\r'}" != 0 ]; do START_BODY+=$line; done
    fi
  fi
  exec {fd}>&-
}

# first_answer_ms URL CMD...
# Starts CMD in the background (its output to $START_LOG, default /dev/null), polls URL every 5 ms until it
# answers 200, prints the milliseconds from just before the start to that answer, then stops CMD (SIGTERM, then
# SIGKILL after 10 s) and waits for it. CMD must listen where URL points (use a free fixed port, not port 0).
first_answer_ms() {
  local url="$1" pid t0 deadline
  shift
  t0=$(_start_now_ms)
  "$@" >"${START_LOG:-/dev/null}" 2>&1 &
  pid=$!
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  until _start_get "$url" && [ "$START_STATUS" = 200 ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "first_answer_ms: $* did not answer $url" >&2
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      return 1
    fi
    _start_sleep
  done
  echo $(($(_start_now_ms) - t0))
  _start_stop "$pid"
}

_start_stop() {
  local pid="$1" deadline=$((SECONDS + 10))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# replacement_ms URL PID_TO_KILL [KNOWN_PID...]
# URL is a cluster's /runtime (its JSON has "pid":N). Learns which pids answer there now (30 requests, plus the
# KNOWN_PIDs given), sends SIGKILL to PID_TO_KILL, then polls URL every 5 ms until a pid not seen before answers
# 200, and prints the milliseconds from just before the kill to that answer. Starts and stops no process.
replacement_ms() {
  local url="$1" victim="$2" seen t0 deadline i
  shift 2
  seen=" $victim $* "
  for i in $(seq 30); do
    _start_get "$url"
    [[ $START_BODY =~ \"pid\":([0-9]+) ]] && seen="$seen${BASH_REMATCH[1]} "
  done
  t0=$(_start_now_ms)
  kill -KILL "$victim"
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  while :; do
    _start_get "$url"
    if [ "$START_STATUS" = 200 ] && [[ $START_BODY =~ \"pid\":([0-9]+) ]] && [[ "$seen" != *" ${BASH_REMATCH[1]} "* ]]; then
      echo $(($(_start_now_ms) - t0))
      return 0
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "replacement_ms: no new pid answered $url within ${START_DEADLINE_S:-120} s" >&2
      return 1
    fi
    _start_sleep
  done
}
