#!/usr/bin/env bash
# Where each request of the lesson's pattern waited: one heavy request, four light ones 50 ms later, a fresh
# connection each, with the server's stages (serve --stages on, probe --stages) under (a) one carrier and the
# derivation inline, (b) one carrier and the derivation pooled, (c) the default carriers, (d) platform threads on
# one CPU. Then two cases where one decision constrains the next: (e) a crypto pool of one thread with room for one
# waiting derivation, three derivations at once (the queue's wait shows as crypto-queue, the one beyond it as a
# 503); (f) one carrier, a pooled derivation and an inline one 300 ms later (the pooled request, done deriving,
# waits in resume for the carrier the inline one holds). Servers on CPU 0 and the client on CPU 1, except (c): on
# one CPU the default is one carrier, so (c) runs both unpinned. Each case runs ROUNDS rounds (3; --short: 2): every
# round's figures are recorded, and each verdict stands on their median.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq taskset
ROUNDS=${ROUNDS:-$(full_or_short 3 2)}   # two even in a quick pass: one run cannot tell a goal met from noise
begin_experiment 09-request-stages "Where does each request of the lesson's pattern wait, stage by stage, in each execution model?"
echo "rounds:  $ROUNDS per case; the stages of the last round are shown, the figures and verdicts take every round"
setting rounds "$ROUNDS"
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

# per_round FILE JQ: one tab-separated line per round of probe's JSON FILE: the values JQ makes of the round (an
# array, with $h the round's first heavy request, $l its light requests, med the median of an array's numbers); "-"
# for null.
# shellcheck disable=SC2016 # $h and $l are jq's variables
per_round() {
  jq -r 'def med: map(select(. != null)) | sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                       else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    .rounds[] | ([.requests[] | select(.kind == "heavy")][0]) as $h | [.requests[] | select(.kind == "light")] as $l
    | '"$2"' | map(if . == null then "-" else . end) | @tsv' "$1"
}

CASES=("a|(a) one carrier, inline" "b|(b) one carrier, pooled" "c|(c) default carriers, inline"
  "d|(d) platform threads, one CPU, inline")

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

# The figures of every round. A light request starts on the server when its connection's thread first runs
# (origin + carrier); a request's response is ready at origin + total (Server-Timing's total ends at beforeSend).
# outside-max is "-" in a round where some request had no Server-Timing.
# shellcheck disable=SC2016 # $h and $l are jq's variables
for entry in "${CASES[@]}"; do
  IFS='|' read -r c title <<< "$entry"
  while IFS=$'\t' read -r heavy handler light carrier carrier_max queue_max outside_max light_queue \
      queue_or_carrier wait_ratio start_after; do
    figure "heavy-client.$c" "$(fixed 1 "$heavy")" ms "$title: the heavy request, client"
    figure "heavy-handler.$c" "$(fixed 1 "$handler")" ms "$title: the heavy request's handler stage"
    figure "light-client.$c" "$(fixed 1 "$light")" ms "$title: the light requests' median, client"
    figure "light-stage.carrier.$c" "$(fixed 1 "$carrier")" ms "$title: the light requests' median carrier stage"
    figure "light-carrier-max.$c" "$(fixed 1 "$carrier_max")" ms "$title: the longest light carrier stage"
    figure "queue-max.$c" "$(fixed 1 "$queue_max")" ms "$title: the longest queue stage of any request"
    figure "outside-max.$c" "$(fixed 1 "$outside_max")" ms "$title: the largest client total - server total"
    if [ "$c" = d ]; then
      figure "light-stage.queue.$c" "$(fixed 1 "$light_queue")" ms "$title: the light requests' median queue stage"
      figure "queue-or-carrier-max.$c" "$(fixed 1 "$queue_or_carrier")" ms \
        "$title: the longest queue or carrier stage of any request"
    fi
    if [ "$c" = a ]; then
      figure "light-carrier-over-heavy-handler.$c" "$(fixed 3 "$wait_ratio")" "" \
        "$title: the shortest light carrier stage / the heavy handler stage"
      figure "light-start-after-heavy-ready.$c" "$(fixed 1 "$start_after")" ms \
        "$title: the earliest light request's first run - the heavy response ready (server clock)"
    fi
  done < <(per_round "$OUT/$c.json" '[$h.durationMs, $h.stages.handler, ($l | map(.durationMs) | med),
      ($l | map(.stages.carrier) | med), ($l | map(.stages.carrier) | max), ([.requests[].stages.queue // 0] | max),
      (if any(.requests[]; .outsideMs == null) then null else [.requests[].outsideMs] | max end),
      ($l | map(.stages.queue) | med), ([.requests[] | [.stages.queue // 0, .stages.carrier // 1e9] | max] | max),
      ($l | map((.stages.carrier // 0) / $h.stages.handler) | min),
      ($l | map(.originMs + .stages.carrier - ($h.originMs + $h.stages.total)) | min)]')
done
while IFS=$'\t' read -r queued derive rejected; do
  figure queued-crypto-queue.e "$(fixed 1 "$queued")" ms "(e) the queued derivation's crypto-queue stage"
  figure derive-before.e "$(fixed 1 "$derive")" ms "(e) the derive stage of the derivation before it"
  figure queued-over-derive.e "$(calc 'a / b' "$queued" "$derive")" "" "(e) crypto-queue / derive before it"
  figure rejected.e "$rejected" "" "(e) requests refused with 503"
done < <(per_round "$OUT/e.json" '[([.requests[].stages["crypto-queue"] // empty] | max),
    ([.requests[].stages.derive // empty] | min), ([.requests[] | select(.status == 503)] | length)]')
# shellcheck disable=SC2016 # $h and $l are jq's variables
while IFS=$'\t' read -r resume handler ready_after; do
  figure pooled-resume.f "$(fixed 1 "$resume")" ms "(f) the pooled request's resume stage"
  figure inline-handler.f "$(fixed 1 "$handler")" ms "(f) the inline request's handler stage"
  figure pooled-ready-after-inline.f "$(fixed 1 "$ready_after")" ms \
    "(f) the pooled response ready - the inline one ready (server clock)"
done < <(per_round "$OUT/f.json" '[$h.stages.resume, $l[0].stages.handler,
    ($h.originMs + $h.stages.total - ($l[0].originMs + $l[0].stages.total))]')

# max_of KEY: the largest of figure KEY's rounds ("-" when none).
max_of() {
  figure_values "$1" | awk '/^-?[0-9.]+$/ { if (n++ == 0 || $1 > m) m = $1 } END { print n ? m : "-" }'
}

table results "heavy, then 4 x /books 50 ms later: medians of $ROUNDS rounds (ms; light: a round's median of its 4; \
max: the largest in any round)" \
  case "heavy client ms" "heavy handler ms" "light client ms" "light carrier ms" "max queue ms" \
  "max light carrier ms" "max outside ms"
for entry in "${CASES[@]}"; do
  IFS='|' read -r c title <<< "$entry"
  row=("$title")
  for key in heavy-client heavy-handler light-client light-stage.carrier; do
    row+=("$(fixed 1 "$(figure_median "$key.$c")")")
  done
  for key in queue-max light-carrier-max outside-max; do
    row+=("$(fixed 1 "$(max_of "$key.$c")")")
  done
  table_row "${row[@]}"
done
table_end

table constraints "(e) crypto pool of 1, queue of 1, 3 derivations at once; (f) one carrier, pooled then inline \
300 ms later (ms)" \
  round "(e) queued crypto-queue ms" "(e) derive before it ms" "(e) 503s" "(f) pooled resume ms" \
  "(f) inline handler ms"
for ((r = 1; r <= ROUNDS; r++)); do
  row=("$r")
  for key in queued-crypto-queue.e derive-before.e rejected.e pooled-resume.f inline-handler.f; do
    row+=("$(figure_values "$key" | sed -n "${r}p")")
  done
  table_row "${row[@]}"
done
row=(median)
for key in queued-crypto-queue.e derive-before.e rejected.e pooled-resume.f inline-handler.f; do
  if [ "$key" = rejected.e ]; then row+=("$(figure_median "$key")"); else row+=("$(fixed 1 "$(figure_median "$key")")"); fi
done
table_row "${row[@]}"
table_end

verdict_on "(a) each light carrier spans the heavy handler of its round" 'light-carrier-over-heavy-handler.a' '>=' 0.8
verdict_on "(a) each light request first runs after the heavy one's beforeSend (server clock)" \
  'light-start-after-heavy-ready.a' '>=' 0
verdict_on "(b) pooled: the light requests' carrier stage stays short" 'light-stage.carrier.b' '<' 5
# On one CPU each hand-off between the server's threads (listener, carrier, handler thread) waits its turn on the
# run queue behind the derivation's thread: a few of the OS's time slices, not the derivation's second. Short here is
# under 25 ms, a fortieth of that second.
verdict_on "(d) platform threads, one CPU: every queue and carrier stage stays short" 'queue-or-carrier-max.d' '<' 25
verdict_on "(d) platform threads, one CPU: the light requests' queue and carrier stages stay short" \
  'light-stage.*.d' '<' 25
for entry in "${CASES[@]}"; do
  IFS='|' read -r c _ <<< "$entry"
  verdict_on "($c) every request: client total - server total stays small" "outside-max.$c" '<' 20
done
verdict_on "(e) a full queue: the queued derivation waits in crypto-queue for the derive before it" \
  'queued-over-derive.e' '>=' 0.8
verdict_on "(e) a full queue: the derivation beyond it is refused with a 503, one a round" 'rejected.e' '==' 1
verdict_on "(f) a busy carrier: the pooled request, done deriving, waits in resume" 'pooled-resume.f' '>=' 50
verdict_on "(f) a busy carrier: the pooled request is ready only after the inline one" \
  'pooled-ready-after-inline.f' '>=' 0

loan_runtime chart stages --title "Where each request waited: heavy, then 4 x /books 50 ms later" \
  --out "$OUT/stages.png" "$OUT"/{a,b,c,d}.json
loan_runtime chart stages --title "One decision constrains the next: a full crypto queue, a busy carrier" \
  --out "$OUT/constraints.png" "$OUT"/{e,f}.json
end_experiment
