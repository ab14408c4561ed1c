#!/usr/bin/env bash
# Where each request of the lesson's pattern waited: one heavy request, four light ones 50 ms later, a fresh
# connection each, with the server's stages (serve --stages on, probe --stages) under (a) one carrier and the
# derivation inline, (b) one carrier and the derivation pooled, (c) the default carriers, (d) platform threads on
# one CPU. Then two cases where one decision constrains the next: (e) a crypto pool of one thread with room for one
# waiting derivation, three derivations at once (the queue's wait shows as crypto-queue, the one beyond it as a
# 503); (f) one carrier, a pooled derivation and an inline one 300 ms later (the pooled request, done deriving,
# waits in resume for the carrier the inline one holds). Servers on CPU 0 and the client on CPU 1, except (c): on
# one CPU the default is one carrier, so (c) runs both unpinned.
# shellcheck disable=SC2016 # $h, $q, $p ... in single quotes are jq's variables
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

require_tools jq taskset
ROUNDS=${ROUNDS:-3}
begin_experiment 09-request-stages
echo "rounds:  $ROUNDS per case; the stages of the last round are shown, the verdicts take every round"
echo

# probe_case NAME CLIENT_CPU TITLE PROBE_OPTION...: probe --stages against SERVER_URL (on CLIENT_CPU, "all" for no
# pinning), JSON to $OUT/NAME.json, its output to $OUT/NAME.txt; prints the last round's lines and stages table.
# A 503 makes probe exit 1: the case (e) wants one, so the status is not fatal; a missing JSON is.
probe_case() {
  local name=$1 cpu=$2 title=$3 pin=()
  shift 3
  [ "$cpu" = all ] || pin=(taskset -c "$cpu")
  "${pin[@]}" "$JAVA" -jar "$JAR" probe --url "$SERVER_URL" --stages --rounds "$ROUNDS" --label "$title" \
    --json "$OUT/$name.json" "$@" > "$OUT/$name.txt" || true
  [ -s "$OUT/$name.json" ] || { echo "probe wrote no $OUT/$name.json:" >&2; cat "$OUT/$name.txt" >&2; exit 1; }
  echo "=== $title ==="
  awk '/^--- round/ { buf = "" } /^--- summary/ { exit } { buf = buf $0 "\n" } END { printf "%s", buf }' \
    "$OUT/$name.txt"
  echo
}

# json_holds FILE FILTER: status 0 when the jq FILTER over FILE gives true.
json_holds() {
  jq -e "$2" "$1" > /dev/null 2>&1
}

# figure FILE FILTER: a number from the jq FILTER over FILE with 1 decimal, "-" when there is none.
figure() {
  fixed 1 "$(json_get "$1" "$2")"
}

# Every request of every round, and those of one kind, as jq streams over probe's JSON.
ALL='.rounds[].requests[]'
LIGHT='.rounds[].requests[] | select(.kind == "light")'
HEAVY='.rounds[].requests[] | select(.kind == "heavy")'
MEDIAN='sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end'

start_server "$OUT/a.server.log" --cpu 0 --carriers 1 --stages on
probe_case a 1 "(a) one carrier, inline (verify-blocking)" --heavy /member/verify-blocking
stop_server "$SERVER_PID"

start_server "$OUT/b.server.log" --cpu 0 --carriers 1 --stages on
probe_case b 1 "(b) one carrier, pooled (verify-pooled)" --heavy /member/verify-pooled
stop_server "$SERVER_PID"

start_server "$OUT/c.server.log" --stages on
probe_case c all "(c) default carriers ($(nproc) CPUs), inline (verify-blocking)" --heavy /member/verify-blocking
stop_server "$SERVER_PID"

start_server "$OUT/d.server.log" --cpu 0 --threads platform --stages on
probe_case d 1 "(d) platform threads, one CPU, inline (verify-blocking)" --heavy /member/verify-blocking
stop_server "$SERVER_PID"

start_server "$OUT/e.server.log" --cpu 0 --crypto-threads 1 --crypto-queue 1 --stages on
probe_case e 1 "(e) crypto pool of 1, queue of 1: 3 x verify-pooled at once" --heavy /member/verify-pooled \
  --heavy-count 3
stop_server "$SERVER_PID"

start_server "$OUT/f.server.log" --cpu 0 --carriers 1 --stages on
probe_case f 1 "(f) one carrier: verify-pooled, then verify-blocking 300 ms later" --heavy /member/verify-pooled \
  --light /member/verify-blocking --light-count 1 --gap-ms 300
stop_server "$SERVER_PID"

echo "--- results over every round (ms; medians unless max) ---"
printf '%-5s %13s %14s %14s %16s %10s %12s %12s\n' case heavy-client heavy-handler light-client light-carrier \
  max-queue max-carrier max-outside
for c in a b c d; do
  f=$OUT/$c.json
  printf '%-5s %13s %14s %14s %16s %10s %12s %12s\n' "($c)" \
    "$(figure "$f" "[$HEAVY | .durationMs] | $MEDIAN")" "$(figure "$f" "[$HEAVY | .stages.handler] | $MEDIAN")" \
    "$(figure "$f" "[$LIGHT | .durationMs] | $MEDIAN")" "$(figure "$f" "[$LIGHT | .stages.carrier] | $MEDIAN")" \
    "$(figure "$f" "[$ALL | .stages.queue // 0] | max")" "$(figure "$f" "[$LIGHT | .stages.carrier] | max")" \
    "$(figure "$f" "[$ALL | .outsideMs] | max")"
done
echo "(e) per round: crypto-queue of the queued derivation, derive of the one before it, 503s:" \
  "$(jq -r '[.rounds[] | [([.requests[].stages["crypto-queue"] // empty] | max),
             ([.requests[].stages.derive // empty] | min), ([.requests[] | select(.status == 503)] | length)]
             | map(if type == "number" then (. * 10 | round / 10) else . end) | join(" / ")] | join(", ")' "$OUT/e.json")"
echo "(f) per round: resume of the pooled request, and the inline one's handler:" \
  "$(jq -r '[.rounds[] | [(.requests[] | select(.kind == "heavy") | .stages.resume),
             (.requests[] | select(.kind == "light") | .stages.handler)] | map(. * 10 | round / 10) | join(" / ")]
             | join(", ")' "$OUT/f.json")"
echo

# A light request starts on the server when its connection's thread first runs (origin + carrier); the heavy one's
# response is ready at origin + total (Server-Timing's total ends at beforeSend).
verdict "(a) each light carrier >= 0.8 x the heavy handler of its round" \
  "$(truth json_holds "$OUT/a.json" '[.rounds[] | ([.requests[] | select(.kind == "heavy")][0].stages.handler) as $h
     | .requests[] | select(.kind == "light") | (.stages.carrier // 0) >= 0.8 * $h] | length > 0 and all')"
verdict "(a) each light request first runs after the heavy one's beforeSend (server clock)" \
  "$(truth json_holds "$OUT/a.json" '[.rounds[] | ([.requests[] | select(.kind == "heavy")][0]) as $h
     | ($h.originMs + $h.stages.total) as $ready | .requests[] | select(.kind == "light")
     | (.originMs + .stages.carrier) >= $ready] | length > 0 and all')"
verdict "(b) pooled: light carrier median < 5 ms" \
  "$(truth json_holds "$OUT/b.json" "([$LIGHT | .stages.carrier] | $MEDIAN) < 5")"
verdict "(d) platform threads, one CPU: every queue and carrier < 5 ms" \
  "$(truth json_holds "$OUT/d.json" "[$ALL | (.stages.queue // 0) < 5 and (.stages.carrier // 99) < 5] | all")"
# On one CPU each hand-off between the server's threads (listener, carrier, handler thread) waits its turn on the
# run queue behind the derivation's thread: a wait of the OS's time slice, a few ms, not the derivation's second.
verdict "(d) platform threads, one CPU: light queue and carrier medians < 5 ms" \
  "$(truth json_holds "$OUT/d.json" "([$LIGHT | .stages.queue] | $MEDIAN) < 5 and ([$LIGHT | .stages.carrier] | $MEDIAN) < 5")"
for c in a b c d; do
  verdict "($c) every request: client total - server total < 20 ms" \
    "$(truth json_holds "$OUT/$c.json" "[$ALL | .outsideMs != null and .outsideMs < 20] | all")"
done
verdict "(e) a full queue: the queued derivation's crypto-queue >= 0.8 x the derive before it, one 503 a round" \
  "$(truth json_holds "$OUT/e.json" '[.rounds[] | ([.requests[].stages["crypto-queue"] // empty] | max) as $q
     | ([.requests[].stages.derive // empty] | min) as $d
     | $q >= 0.8 * $d and ([.requests[] | select(.status == 503)] | length) == 1] | all')"
verdict "(f) a busy carrier: the pooled request waits >= 50 ms in resume and is ready after the inline one" \
  "$(truth json_holds "$OUT/f.json" '[.rounds[] | ([.requests[] | select(.kind == "heavy")][0]) as $p
     | ([.requests[] | select(.kind == "light")][0]) as $b
     | $p.stages.resume >= 50 and ($p.originMs + $p.stages.total) >= ($b.originMs + $b.stages.total)] | all')"

# The charts go to docs/ too: README.md and docs/request-stages.md show them.
loan_runtime chart stages --title "Where each request waited: heavy, then 4 x /books 50 ms later" \
  --out "$OUT/stages.png" "$OUT"/{a,b,c,d}.json
loan_runtime chart stages --title "One decision constrains the next: a full crypto queue, a busy carrier" \
  --out "$OUT/constraints.png" "$OUT"/{e,f}.json
cp "$OUT/stages.png" docs/09-request-stages.png
cp "$OUT/constraints.png" docs/09-request-stages-constraints.png
