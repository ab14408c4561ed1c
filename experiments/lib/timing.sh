# shellcheck shell=bash
# Start-up and replacement times, measured from bash without a process per poll (http_get, and a wait that is a
# read with a timeout): on a busy 2-core machine a fork per poll (curl, sed, sleep) costs tens to hundreds of ms,
# which would be measured along. Part of experiments/lib (source init.sh). Needs bash 5 ($EPOCHREALTIME).
#
# first_answer_ms and replacement_ms print one integer of milliseconds on stdout and nothing else there; they fail
# (status 1, a reason on stderr) when the deadline (START_DEADLINE_S, default 120 s) passes first. Polls come every
# START_POLL_S (0.005) seconds.

START_POLL_S=${START_POLL_S:-0.005}

# now_ms: the wall clock in milliseconds (for differences), without a process.
now_ms() {
  local t=${EPOCHREALTIME/./}
  echo $((t / 1000))
}

# _poll_pause: waits START_POLL_S without a process: a read with a timeout on a pipe that never gets data.
_poll_pause() {
  [ -n "${_POLL_FD:-}" ] || exec {_POLL_FD}<> <(:)
  read -r -t "$START_POLL_S" -u "$_POLL_FD" _ || true
}

# first_answer_ms URL CMD [ARG...]: starts CMD (output to $START_LOG, default /dev/null), polls URL until it answers
# 200, prints the milliseconds from just before the start to that answer, then stops CMD (SIGTERM, SIGKILL after
# STOP_WAIT_S, 10 s unless set). CMD must listen where URL points: a fixed port (free_port), not port 0. With
# THEN_GET=URL2 and THEN_BODY=FILE, it GETs URL2 after the first answer, before the stop, into FILE (e.g. the
# server's /runtime). With CPU_FILE=FILE, it writes there "TOTAL JIT": the process's CPU time (user + system) in ms at
# that answer, and the part of it its JIT compiler threads took. With THEN_TIMES=FILE, it then sends URL THEN_N times
# (1000) on one kept-alive connection, one after another, and writes each request's seconds (curl's time_total) there.
first_answer_ms() {
  local url=$1 pid t0 deadline
  shift
  t0=$(now_ms)
  start_bg "${START_LOG:-/dev/null}" "$@"
  pid=$BG_PID
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  until http_get "$url" && [ "$HTTP_STATUS" = 200 ]; do
    if ! is_running "$pid" || [ "$SECONDS" -ge "$deadline" ]; then
      echo "first_answer_ms: $* did not answer $url" >&2
      stop_pid "$pid" KILL
      return 1
    fi
    _poll_pause
  done
  echo $(($(now_ms) - t0))
  [ -z "${CPU_FILE:-}" ] || process_cpu_ms "$pid" >"$CPU_FILE"
  if [ -n "${THEN_TIMES:-}" ]; then
    _curl_urls "${THEN_N:-1000}" "$url" /dev/null | curl -s -K - -w '%{time_total}\n' >"$THEN_TIMES" || true
  fi
  if [ -n "${THEN_GET:-}" ]; then
    http_get "$THEN_GET"
    printf '%s' "$HTTP_BODY" > "$THEN_BODY"
  fi
  stop_pid "$pid" TERM "${STOP_WAIT_S:-10}"
}

# warm_up_costs FILE [K]: of the request times (s) in FILE, one a line, "COLD WARM COST" in ms: the mean of the
# first K (50), of the last K, and the sum over all of what each took beyond the last K's mean (the warm-up's cost).
warm_up_costs() {
  awk -v k="${2:-50}" '{ t[NR] = $1 * 1000 }
    END {
      if (NR < 2 * k) { print "- - -"; exit }
      for (i = 1; i <= k; i++) { cold += t[i]; warm += t[NR - k + i] }
      warm /= k
      for (i = 1; i <= NR; i++) if (t[i] > warm) cost += t[i] - warm
      printf "%.2f %.2f %.0f\n", cold / k, warm, cost
    }' "$1"
}

# process_cpu_ms PID: "TOTAL JIT", PID's CPU time (user + system, ms; clock ticks of 10 ms) and its JIT compiler
# threads' part (threads named "C1 CompilerThre..." or "C2 CompilerThre..."; those that ended are in TOTAL only).
process_cpu_ms() {
  local total jit=0 t
  total=$(_stat_cpu_ms "/proc/$1/stat")
  for t in /proc/"$1"/task/*; do
    [[ $(cat "$t/comm" 2>/dev/null) == C[12]\ Compiler* ]] || continue
    jit=$((jit + $(_stat_cpu_ms "$t/stat")))
  done
  echo "$total $jit"
}

# _stat_cpu_ms FILE: utime + stime of a /proc stat FILE in ms; 0 when it is gone. The fields are counted after the
# name in parentheses, which may hold spaces ("C2 CompilerThre").
_stat_cpu_ms() {
  sed 's/.*) //' "$1" 2>/dev/null | awk '{ print ($12 + $13) * 10 } END { if (!NR) print 0 }'
}

# replacement_ms URL PID_TO_KILL [KNOWN_PID...]: URL is a cluster's /runtime (its JSON has "pid":N). Learns which pids
# answer there now (30 requests, plus the KNOWN_PIDs), sends SIGKILL to PID_TO_KILL, then polls URL until a pid not
# seen before answers 200, and prints the milliseconds from just before the kill to that answer. Starts no process.
replacement_ms() {
  local url=$1 victim=$2 seen t0 deadline
  shift 2
  seen=" $victim $* "
  for _ in $(seq 30); do
    http_get "$url"
    [[ $HTTP_BODY =~ \"pid\":([0-9]+) ]] && seen="$seen${BASH_REMATCH[1]} "
  done
  t0=$(now_ms)
  kill -KILL "$victim"
  deadline=$((SECONDS + ${START_DEADLINE_S:-120}))
  while :; do
    http_get "$url"
    if [ "$HTTP_STATUS" = 200 ] && [[ $HTTP_BODY =~ \"pid\":([0-9]+) ]] && [[ $seen != *" ${BASH_REMATCH[1]} "* ]]
    then
      echo $(($(now_ms) - t0))
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "replacement_ms: no new pid answered $url within ${START_DEADLINE_S:-120} s" >&2
      return 1
    fi
    _poll_pause
  done
}
