#!/usr/bin/env bash
# The library's own test (.ci/run runs it): a script that starts a background process through start_bg and then
# fails under `set -e`, ends normally, or gets SIGTERM leaves no process behind; the cleanup stack stopped it.
# Prints one line and exits 0, or names the ending whose process outlived its script and exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
pid_file=$(mktemp)
trap 'rm -f "$pid_file"' EXIT
for ending in fails ends is-stopped; do
  : >"$pid_file"
  status=0
  bash -c '
    set -euo pipefail
    source experiments/lib/init.sh
    start_bg /dev/null sleep 300
    echo "$BG_PID" >"$1"
    case $2 in
      fails) false ;;
      is-stopped) kill -TERM $$; sleep 5 ;;
    esac' selftest "$pid_file" "$ending" >/dev/null 2>&1 || status=$?
  pid=$(cat "$pid_file")
  if [ -z "$pid" ]; then
    echo "experiments/lib selftest: the script that $ending never started its process (status $status)" >&2
    exit 1
  fi
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    echo "experiments/lib selftest: a script that $ending (status $status) left its process $pid running" >&2
    exit 1
  fi
done
echo "experiments/lib selftest: a script that fails, ends or is stopped leaves no process behind"

# A verdict with a band stands on MIN_ROUNDS rounds at least: two rounds that both clear the goal are not a "held".
outcomes=$(bash -c 'source experiments/lib/init.sh; echo "$(within_outcome 2 0 2) $(within_outcome 0 2 2)" \
  "$(within_outcome 3 0 3) $(within_outcome 0 3 3) $(within_outcome 2 0 3)"' 2>/dev/null)
if [ "$outcomes" != "inconclusive inconclusive held failed inconclusive" ]; then
  echo "experiments/lib selftest: within_outcome on 2, 2, 3, 3 and 3 rounds gave '$outcomes'" >&2
  exit 1
fi
echo "experiments/lib selftest: a verdict with a band is inconclusive on fewer than 3 rounds"
