#!/usr/bin/env bash
# The lesson on one HTTP/2 connection (h2c): light GET /books streams at a fixed rate (open loop) beside heavy streams
# (a closed loop of derivations, each sent again when answered), the heavy ones on the light streams' own connection
# (same) or on a second one (other), measured frame by frame (experiments/H2Probe.java): the light streams' latency
# to their answer's HEADERS, and the round trip of a PING every 100 ms, which the server's connection thread answers
# itself, not a handler. In each execution model (one carrier inline and pooled, the default carriers inline with
# CPUs + 1 heavy streams, platform threads inline) and in the Node.js peer over node:http2 (scryptSync and scrypt).
# The server's own delay (carrierDelay over the last 10 s) is read after each run from the admin port (Node: /runtime).
# Then /books over h2c against HTTP/1.1 in CPU time per request: one server on CPU 0, h2load (2 connections, 10
# streams each) and wrk (20 connections) on CPU 1, interleaved, PAIRS pairs, each pair's ratio h2c / HTTP/1.1.
# Settings (environment): ROUNDS (3, --short 1), RUN_S (10), LIGHT_RATE (20 a second: a stalled connection piles
# up RUN_S x LIGHT_RATE streams, under the server's 250), PAIRS (6, --short 5), PAIR_S (5).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq curl taskset h2load wrk
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
RUN_S=${RUN_S:-10}
LIGHT_RATE=${LIGHT_RATE:-20}
PAIRS=${PAIRS:-$(full_or_short 6 5)}   # a short pass too: a verdict on pairs stands on 5 at least
PAIR_S=${PAIR_S:-5}
CPUS=$(nproc)
[ "$CPUS" -ge 2 ] || { echo "17-http2.sh needs 2 CPUs (servers on CPU 0, clients on CPU 1)" >&2; exit 1; }
HAVE_NODE=false; command -v node > /dev/null && HAVE_NODE=true
begin_experiment 17-http2 "On one HTTP/2 connection, does a heavy stream hold the light streams and the PINGs beside it, in each execution model and in Node's, and what does h2c cost per /books request against HTTP/1.1?"
echo "rounds:  $ROUNDS per case; light: /books streams at ${LIGHT_RATE}/s for ${RUN_S}s and a PING every 100 ms"
echo "pairs:   $PAIRS interleaved pairs of ${PAIR_S}s: h2load -c2 -m10 against wrk -c20, /books, CPU per request"
for s in rounds:"$ROUNDS" run-seconds:"$RUN_S" light-rate:"$LIGHT_RATE" pairs:"$PAIRS" pair-seconds:"$PAIR_S" \
  cpus:"$CPUS"; do
  setting "${s%%:*}" "${s#*:}"
done
$HAVE_NODE || echo "node:    missing: the Node.js cases are skipped"
echo
"$JAVA_HOME/bin/javac" -d "$OUT/classes" -cp "$JAR" experiments/H2Probe.java

# The models: KEY|SERVER (serve or node)|OPTIONS|HEAVY PATH|HEAVY STREAMS|CPU (0: server on CPU 0, client on 1;
# all: unpinned)|TITLE
MODELS=("vt-1-carrier-inline|serve|--carriers 1|/member/verify-blocking|1|0|virtual threads, 1 carrier, inline"
  "vt-1-carrier-pooled|serve|--carriers 1|/member/verify-pooled|1|0|virtual threads, 1 carrier, pooled"
  "vt-default-inline|serve||/member/verify-blocking|$((CPUS + 1))|all|virtual threads, $CPUS carriers, inline"
  "platform-inline|serve|--threads platform|/member/verify-blocking|2|0|platform threads, 1 CPU, inline")
if $HAVE_NODE; then
  MODELS+=("node-sync|node|--http2|/member/verify-blocking|1|0|Node.js h2c, scryptSync"
    "node-pooled|node|--http2|/member/verify-pooled|1|0|Node.js h2c, scrypt (libuv pool)")
fi

# run_case KEY SERVER OPTIONS HEAVY STREAMS CPU PLACE ROUND: one fresh server and one probe run; the figures.
run_case() {
  local key=$1 kind=$2 options=$3 heavy=$4 streams=$5 cpu=$6 place=$7 round=$8 base="$OUT/$1-$7-$8" \
    server_cpu=() client=() runtime case=$1.$7
  if [ "$cpu" = 0 ]; then server_cpu=(--cpu 0); client=(taskset -c 1); fi
  # shellcheck disable=SC2086 # the options are words
  case $kind in
    serve) start_server "$base.server.log" "${server_cpu[@]}" $options ;;
    node) start_peer node "$base.server.log" "${server_cpu[@]}" $options ;;
  esac
  # over h2c: Node's http2 server speaks nothing else without TLS
  curl_requests 20 "$SERVER_URL/books" --http2-prior-knowledge > /dev/null
  # the first derivations make their workspaces and load their classes: not in the measured run
  curl -s --max-time 60 --http2-prior-knowledge "$SERVER_URL$heavy" > /dev/null
  "${client[@]}" "$JAVA" -cp "$OUT/classes:$JAR" H2Probe "$SERVER_URL" "$heavy" "$streams" "$place" "$RUN_S" \
    "$LIGHT_RATE" "$base.probe.json"
  runtime="$SERVER_URL/runtime"
  if [ "$kind" = serve ]; then
    # the admin port (HTTP/1.1, platform threads) answers while the carriers are held
    curl -s --max-time 60 "$(admin_url "$base.server.log")/runtime" > "$base.runtime.json" \
      || echo "  $case round $round: /runtime did not answer"
  else
    curl -s --max-time 60 --http2-prior-knowledge "$runtime" > "$base.runtime.json" \
      || echo "  $case round $round: /runtime did not answer"
  fi
  stop_server "$SERVER_PID"
  local p=$base.probe.json
  figure "light.p99.$case" "$(fixed 1 "$(json_get "$p" .light.p99Ms)")" ms "light stream p99: $case"
  figure "light.unanswered.$case" "$(calc 'a - b' "$(json_get "$p" .light.sent)" "$(json_get "$p" .light.answered)")" \
    "" "light streams not answered: $case"
  figure "ping.p99.$case" "$(fixed 1 "$(json_get "$p" .ping.p99Ms)")" ms "PING round trip p99: $case"
  figure "ping.max.$case" "$(fixed 1 "$(json_get "$p" .ping.maxMs)")" ms "largest PING round trip: $case"
  figure "delay.p99.$case" "$(json_get "$base.runtime.json" .carrierDelay.last10s.p99Ms)" ms \
    "the server's delay p99 over the last 10 s: $case"
  printf '  round %d %-28s light p99 %9s ms (%s unanswered)   PING p99 %9s max %9s ms   delay p99 %9s ms%s\n' \
    "$round" "$case" "$(figure_values "light.p99.$case" | tail -1)" \
    "$(figure_values "light.unanswered.$case" | tail -1)" "$(figure_values "ping.p99.$case" | tail -1)" \
    "$(figure_values "ping.max.$case" | tail -1)" "$(figure_values "delay.p99.$case" | tail -1)" \
    "$(jq -r 'if .goaway == null then "" else "   GOAWAY \(.goaway)" end' "$p")"
}

for round in $(seq 1 "$ROUNDS"); do
  for m in "${MODELS[@]}"; do
    IFS='|' read -r key kind options heavy streams cpu _ <<< "$m"
    for place in same other; do
      run_case "$key" "$kind" "$options" "$heavy" "$streams" "$cpu" "$place" "$round"
    done
  done
done

echo
echo "--- /books over h2c against HTTP/1.1: CPU per request, $PAIRS interleaved pairs ---"
start_server "$OUT/pairs.server.log" --cpu 0
curl_requests 20 "$SERVER_URL/books" > /dev/null
# warm both paths of the server's JIT before the first pair
taskset -c 1 h2load -c2 -m10 -D "$PAIR_S" "$SERVER_URL/books" > /dev/null
taskset -c 1 wrk -t1 -c20 -d"${PAIR_S}s" "$SERVER_URL/books" > /dev/null
# cost h2load|wrk CLIENT...: the server's CPU time per answered request (µs) over one run of CLIENT, and the share of
# its one CPU it used (below 0.9: the client, not the server, was the limit)
cost() {
  local kind=$1 before after answered out
  shift
  before=$(awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat")
  out=$("$@")
  after=$(awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat")
  case $kind in
    h2load) answered=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' <<< "$out") ;;
    wrk) answered=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' <<< "$out") ;;
  esac
  echo "$(calc 'a * 1000000 / b / c' "$((after - before))" "${answered:--}" "$(getconf CLK_TCK)")" \
    "$(calc 'a / b / c' "$((after - before))" "$PAIR_S" "$(getconf CLK_TCK)")"
}
for pair in $(seq 1 "$PAIRS"); do
  read -r h2 busy_h2 < <(cost h2load taskset -c 1 h2load -c2 -m10 -D "$PAIR_S" "$SERVER_URL/books")
  read -r h1 busy_h1 < <(cost wrk taskset -c 1 wrk -t1 -c20 -d"${PAIR_S}s" "$SERVER_URL/books")
  figure busy.h2c "$busy_h2" "" "the server's share of its CPU under h2load"
  figure busy.http1 "$busy_h1" "" "the server's share of its CPU under wrk"
  figure cpu.h2c "$h2" µs "server CPU per /books request, h2c (h2load -c2 -m10)"
  figure cpu.http1 "$h1" µs "server CPU per /books request, HTTP/1.1 (wrk -c20)"
  figure cpu.h2c-over-http1 "$(calc 'a / b' "$h2" "$h1")" "" "CPU per request, h2c / HTTP/1.1"
  echo "  pair $pair: h2c $h2 µs, HTTP/1.1 $h1 µs a request"
done
stop_server "$SERVER_PID"

echo
table streams "medians over $ROUNDS rounds (ms; light: /books streams at ${LIGHT_RATE}/s on one connection; PING: \
its round trip on that connection; delay: the server's own probe, last 10 s)" case model heavy "light p99" \
  "light unanswered" "PING p99" "PING max" "delay p99"
for m in "${MODELS[@]}"; do
  IFS='|' read -r key _ _ _ _ _ title <<< "$m"
  for place in same other; do
    table_row "$key" "$title" "$place connection" "$(figure_median "light.p99.$key.$place")" \
      "$(figure_median "light.unanswered.$key.$place")" "$(figure_median "ping.p99.$key.$place")" \
      "$(figure_median "ping.max.$key.$place")" "$(figure_median "delay.p99.$key.$place")"
  done
done
table_end
table cost "/books: the server's CPU per request (µs, medians of $PAIRS pairs; busy: the least share of its CPU the \
server used in a run)" protocol "µs a request" busy
table_row "h2c (h2load -c2 -m10)" "$(figure_median cpu.h2c)" "$(figure_values busy.h2c | sort -g | head -1)"
table_row "HTTP/1.1 (wrk -c20)" "$(figure_median cpu.http1)" "$(figure_values busy.http1 | sort -g | head -1)"
table_end

verdict_on "one carrier, inline: light streams on the heavy stream's connection wait at least half a second (p99)" \
  'light.p99.vt-1-carrier-inline.same' '>=' 500
verdict_on "one carrier, inline: so do the PINGs, which no handler answers" 'ping.max.vt-1-carrier-inline.same' '>=' 500
verdict_on "one carrier, inline: and so does another connection's light stream" \
  'light.p99.vt-1-carrier-inline.other' '>=' 500
verdict_on "Node.js h2c with scryptSync: light streams and PINGs wait at least half a second" \
  'ping.max.node-sync.*' '>=' 500
verdict_on "pooled, in Java and in Node: light p99 at most 50 ms on either connection" 'light.p99.*-pooled.*' '<=' 50
verdict_on "pooled: PING p99 at most 20 ms" 'ping.p99.*-pooled.*' '<=' 20
verdict_on "platform threads: PINGs answered within 50 ms (p99): the connection's thread is not a handler's" \
  'ping.p99.platform-inline.*' '<=' 50
bound=""
starved=$( (figure_values busy.h2c; figure_values busy.http1) | awk '$1 < 0.9' | wc -l)
[ "$starved" -eq 0 ] || bound="client-bound"
verdict_interval "h2c costs the server no more CPU per /books request than HTTP/1.1 (within 10%)" \
  cpu.h2c-over-http1 '<=' 1.1 "$bound"
end_experiment
