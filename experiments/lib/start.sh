# Sourced by 07-worker-start.sh and by any script that needs start-up figures (bench.sh). Needs curl and bash 5
# ($EPOCHREALTIME). Both functions print one integer of milliseconds on stdout and nothing else there; they fail
# (status 1, a reason on stderr) when the deadline (START_DEADLINE_S, default 120 s) passes first.

START_POLL_S=${START_POLL_S:-0.005}

_start_now_ms() {
  local t=${EPOCHREALTIME/./}
  echo $((t / 1000))
}

# first_answer_ms URL CMD...
# Starts CMD in the background (its output to $START_LOG, default /dev/null), polls URL every 5 ms until it
# answers 200, prints the milliseconds from just before the start to that answer, then stops CMD (SIGTERM, then
# SIGKILL after 10 s) and waits for it. CMD must listen where URL points (use a free fixed port, not port 0).
first_answer_ms() {
  local url="$1" pid t0 code deadline
  shift
  t0=$(_start_now_ms)
  "$@" >"${START_LOG:-/dev/null}" 2>&1 &
  pid=$!
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  until code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url") && [ "$code" = 200 ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "first_answer_ms: $* did not answer $url" >&2
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      return 1
    fi
    sleep "$START_POLL_S"
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
  local url="$1" victim="$2" seen body pid t0 deadline i
  shift 2
  seen=" $victim $* "
  for i in $(seq 30); do
    pid=$(curl -s --max-time 1 "$url" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
    [ -n "$pid" ] && seen="$seen$pid "
  done
  t0=$(_start_now_ms)
  kill -KILL "$victim"
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  while :; do
    body=$(curl -s --max-time 1 "$url" || true)
    pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' <<<"$body")
    if [ -n "$pid" ] && [[ "$seen" != *" $pid "* ]]; then
      echo $(($(_start_now_ms) - t0))
      return 0
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "replacement_ms: no new pid answered $url within ${START_DEADLINE_S:-120} s" >&2
      return 1
    fi
    sleep "$START_POLL_S"
  done
}
