# shellcheck shell=bash
# The cleanup stack, and starting and stopping processes by PID. Part of experiments/lib (source init.sh).
#
# One stack holds everything to undo at exit: every process started with start_bg (and so with every start_*
# function of this library), every make_temp_dir directory, and whatever a script pushes with on_exit. The EXIT trap
# that init.sh sets pops it newest first. A process stopped or waited for earlier leaves the stack then, so a pid that
# the kernel hands out again later is never signalled.

_CLEANUP=()

# on_exit CMD [ARG...]: pushes "CMD ARG..." (each argument kept as is) to run at exit, before anything pushed earlier.
on_exit() {
  local entry
  printf -v entry '%q ' "$@"   # -v: no subshell, so nothing is forked between a start and its measurement
  _CLEANUP+=("$entry")
}

# forget_on_exit CMD [ARG...]: drops what on_exit CMD ARG... pushed, when its work has been done already.
forget_on_exit() {
  local entry kept=() e
  printf -v entry '%q ' "$@"
  for e in "${_CLEANUP[@]}"; do
    [ "$e" = "$entry" ] || kept+=("$e")
  done
  _CLEANUP=("${kept[@]}")
}

# The EXIT trap: every entry, newest first, each whatever the one before did. The script's exit status stays.
_run_cleanup() {
  local i
  set +e
  for ((i = ${#_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${_CLEANUP[i]}"
  done
  _CLEANUP=()
}

# start_bg LOG CMD [ARG...]: runs CMD in the background, stdout and stderr to LOG (/dev/null drops them), pushes
# "stop_pid PID" on the cleanup stack and sets BG_PID.
start_bg() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 &
  BG_PID=$!
  on_exit stop_pid "$BG_PID"
}

# is_running PID: status 0 when PID is alive and not a zombie (a child that exited but was not reaped yet).
is_running() {
  local stat
  kill -0 "$1" 2>/dev/null || return 1
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# running_pids [PID...]: prints, one a line, those of the PIDs that are running.
running_pids() {
  local pid
  for pid in "$@"; do
    if is_running "$pid"; then echo "$pid"; fi
  done
}

# stop_pid PID [SIGNAL] [GRACE_S]: sends SIGNAL (TERM) to PID, SIGKILL when it still runs GRACE_S (15) seconds later,
# reaps it when it is this shell's child, and drops it from the cleanup stack. Never fails. Bash prints no "Killed"
# notice for it: the kill was ours.
stop_pid() {
  local pid=$1 signal=${2:-TERM} deadline=$((SECONDS + ${3:-15}))
  forget_on_exit stop_pid "$pid"
  if kill -"$signal" "$pid"; then
    while is_running "$pid"; do
      if [ "$SECONDS" -ge "$deadline" ]; then
        kill -KILL "$pid"
        break
      fi
      sleep 0.05
    done
  fi
  wait "$pid" || true
} 2>/dev/null

# stop_pids [PID...]: SIGTERM to all of them at once, then stop_pid each (SIGKILL after 15 s).
stop_pids() {
  local pid
  for pid in "$@"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "$@"; do
    stop_pid "$pid"
  done
}

# wait_pid PID: waits until PID (a child of this shell) exits by itself, drops it from the cleanup stack and returns
# its exit status (under set -e, write `wait_pid "$pid" || status=$?`).
wait_pid() {
  local status=0
  forget_on_exit stop_pid "$1"
  wait "$1" || status=$?
  return "$status"
}

# make_temp_dir: creates a temporary directory, removed with its contents at exit, and sets TEMP_DIR to its path.
make_temp_dir() {
  TEMP_DIR=$(mktemp -d)
  on_exit rm -rf -- "$TEMP_DIR"
}

# await_line LOG REGEX PID [COUNT] [TIMEOUT_S]: waits until LOG holds COUNT (1) lines that match REGEX (grep's basic
# syntax). When PID exits first, or TIMEOUT_S (180: a JVM starts slowly on a busy machine) pass, the script exits
# with status 1 and LOG's last 20 lines on stderr.
await_line() {
  local log=$1 regex=$2 pid=$3 count=${4:-1} deadline=$((SECONDS + ${5:-180})) n
  while n=$(grep -cs -- "$regex" "$log" || true); [ "${n:-0}" -lt "$count" ]; do
    if ! is_running "$pid" || [ "$SECONDS" -ge "$deadline" ]; then
      echo "no $count line(s) matching '$regex' in $log while pid $pid ran (${5:-180} s at most):" >&2
      tail -20 "$log" >&2
      exit 1
    fi
    sleep 0.05
  done
}

# wait_until TIMEOUT_S CMD [ARG...]: runs CMD every 0.1 s until it succeeds (status 0) or TIMEOUT_S pass (status 1).
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}
