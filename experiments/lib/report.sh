# shellcheck shell=bash
# What every experiment prints: the run header first, one "verdict:" line per claim last (verdict and verdict_on
# are in record.sh, since they also go into the record). Part of experiments/lib (source init.sh).

# begin_experiment NAME QUESTION: the start of an experiment: sets OUT=experiments/results/NAME and empties it
# (results of an earlier run would mix with this one's), builds the jar when needed (build_once), prints the run
# header and starts the run's record (record.sh; QUESTION is what the experiment asks, in a line). Call run_mode
# "$@" before it, and end_experiment at the end.
begin_experiment() {
  if [[ ! $1 =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
    echo "begin_experiment: '$1' is not a name for a results directory" >&2
    exit 2
  fi
  require_tools jq
  OUT=experiments/results/$1
  rm -rf "$OUT"
  mkdir -p "$OUT"
  build_once
  print_header "$1"
  _record_start "$1" "${2:-}"
  local idle
  idle=$(jq -r .cpuIdleBeforePercent "$OUT/.record/start.json")
  if [ "$idle" -lt 90 ]; then
    echo "busy:    the CPUs were only $idle% idle over the second before this run: other work slows every number"
  fi
  if [ "$RUN_MODE" = short ]; then
    echo "mode:    --short: fewer rounds and shorter runs; the figures are noisier and the verdicts only indicative"
  fi
  _expected_duration "$1"
  _still_running "$1"
}

# _still_running NAME: on a terminal, one line on stderr every 15 s while the experiment runs (some parts measure
# for minutes without a line). Under record.sh, whose output is a pipe, record.sh says it instead.
_still_running() {
  [ -t 2 ] || return 0
  local name=$1 t0=$SECONDS
  # read -t on a pipe nobody writes to waits without a child process, so the signal that stops it stops it at once
  ( exec {fd}<> <(:); while ! read -rt 15 -u "$fd"; do echo "  ... $name still running, $((SECONDS - t0))s in" >&2
    done ) &
  on_exit stop_pid $!
}

# _expected_duration NAME: how long the run will take, from the last record of NAME kept in docs/results/ (a full
# record) or experiments/results/ (this machine's last run was moved aside by now, so only the kept one counts).
_expected_duration() {
  local record=docs/results/$1/record.json seconds mode
  [ -f "$record" ] || return 0
  seconds=$(jq -r '.durationSeconds // empty' "$record")
  mode=$(jq -r '.mode // "full"' "$record")
  [ -n "$seconds" ] || return 0
  if [ "$mode" = "$RUN_MODE" ]; then
    echo "expect:  about $(( (seconds + 59) / 60 )) min (its kept record took ${seconds}s)"
  else
    echo "expect:  its kept record, a $mode run, took ${seconds}s; a $RUN_MODE run takes $( [ "$RUN_MODE" = short ] \
&& echo less || echo more)"
  fi
}

# print_header NAME: the run header: what ran, when, at which commit, on which machine under which load, with which
# java, and where its output goes (OUT). Every recorded output starts with it.
print_header() {
  local dirty=""
  [ "$(_code_dirty)" = false ] || dirty=" (with uncommitted changes)"
  echo "== $1 =="
  echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo ?)$dirty"
  echo "machine: $(nproc) CPUs ($(uname -m)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)" \
    "RAM, kernel $(uname -r)"
  echo "load:    $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?) (load average, 1/5/15 min: other work slows" \
    "every number)"
  echo "java:    $JAVA"
  "$JAVA" -version 2>&1 | sed 's/^/         /'
  echo "output:  ${OUT:-(none)}"
}

# require_tools TOOL...: exits with status 1, naming the first TOOL that is not on the PATH (a Debian package of
# that name provides each tool the experiments use).
require_tools() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "$tool is needed (apt-get install $tool)" >&2
      exit 1
    fi
  done
}

# truth CMD [ARG...]: prints true when CMD succeeds, else false. E.g. verdict "..." "$(truth holds "$a" '<' "$b")"
truth() {
  if "$@"; then echo true; else echo false; fi
}
