#!/usr/bin/env bash
# The live page, used as a person would: on `serve --carriers 1` (its heavy requests the lesson's scrypt), headless
# Chromium opens the admin port's /live, starts the page's light load, presses "send, inline" (3 heavy requests) and
# later "send, pooled" (experiments/LivePage.java). Measures how soon after the press the page shows the carrier delay
# (its max, or "late now") passing 500 ms, the largest delay and light latency it drew, and the delay's p99 after the pooled press; keeps the
# last round's screenshot (live.png). Server on CPU 0, the browser on CPU 1.
#
#   experiments/16-live-page.sh [--short]      ROUNDS=3 (--short 1), PHASE_S=14 (seconds after each press); a value
#                                               set in the environment wins. Needs chromium and chromedriver (Debian's
#                                               chromium and chromium-driver; CHROMIUM and CHROMEDRIVER name others).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
PHASE_S=${PHASE_S:-14}
for name in ROUNDS PHASE_S; do
  if [[ ! ${!name} =~ ^[1-9][0-9]*$ ]]; then
    echo "16-live-page.sh: $name must be a positive whole number, was '${!name}'" >&2
    exit 2
  fi
done
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
for tool in "$CHROMIUM" "$CHROMEDRIVER"; do
  if [ ! -x "$tool" ]; then
    echo "16-live-page.sh: needs $tool (Debian's chromium and chromium-driver; or set CHROMIUM, CHROMEDRIVER)" >&2
    exit 1
  fi
done
export CHROMIUM CHROMEDRIVER
require_tools taskset
begin_experiment 16-live-page \
  "On one carrier, does the live page show the heavy requests' stall within 2 s, and a flat carrier delay once they are pooled?"
browser_libs
echo "rounds:  $ROUNDS, each with a fresh server (serve --carriers 1, CPU 0) and browser (CPU 1);" \
  "$PHASE_S s after each press"
setting rounds "$ROUNDS"
setting phase-seconds "$PHASE_S"

# value KEY: KEY's value in the driver's line (key=value ...)
value() {
  sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<< "$line"
}

"$JAVA_HOME/bin/javac" -cp "$BROWSER_LIBS/*" -d "$OUT/classes" experiments/LivePage.java
for round in $(seq "$ROUNDS"); do
  start_server "$OUT/server-$round.log" --cpu 0 -- --carriers 1
  admin=$(admin_url "$OUT/server-$round.log")
  taskset -c 1 "$JAVA" -cp "$OUT/classes:$BROWSER_LIBS/*" LivePage "$admin" "$OUT/live.png" 5 "$PHASE_S" \
    > "$OUT/page-$round.txt" 2> "$OUT/page-$round.err"
  stop_server "$SERVER_PID"
  read -r line < "$OUT/page-$round.txt"
  echo "  round $round: $line"
  seen=$(value spike-seen-ms)
  if [ "$seen" != - ]; then seen=$(awk -v ms="$seen" 'BEGIN { printf "%.2f", ms / 1000 }'); fi
  figure spike-seen "$seen" s \
    "inline press -> the page's carrier delay (max or late now) past 500 ms"
  figure inline.delay-max "$(value inline-delay-max-ms)" ms "largest carrier delay the page drew, inline"
  figure inline.light-max "$(value inline-light-max-ms)" ms "slowest light request the page drew, inline"
  figure pooled.delay-p99 "$(value pooled-delay-p99-ms)" ms "carrier delay p99 (last 10 s) $PHASE_S s after the pooled press"
done

echo
table page "what the page drew (medians of $ROUNDS rounds)" measure value
table_row "inline press -> carrier delay past 500 ms on the page (s)" "$(figure_median spike-seen)"
table_row "largest carrier delay, inline (ms)" "$(figure_median inline.delay-max)"
table_row "slowest light request, inline (ms)" "$(figure_median inline.light-max)"
table_row "carrier delay p99, $PHASE_S s after the pooled press (ms)" "$(figure_median pooled.delay-p99)"
table_end

verdict_on "the page shows the inline stall within 2 s of the press" spike-seen '<=' 2
verdict_on "the light requests the page sends wait behind the inline work (300 ms or more)" inline.light-max '>=' 300
verdict_on "pooled, the page's carrier-delay p99 stays under 50 ms" pooled.delay-p99 '<' 50
end_experiment
