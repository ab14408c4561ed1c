#!/usr/bin/env bash
# What pins a carrier: 50 concurrent GET /catalog/lookup?ms=100&inside=KIND for each way of waiting (none, monitor,
# lock, native) beside a light /books client, on every JDK given, with virtual threads (default carriers) and with
# --threads platform. Little's law bounds the rate at 50 / 0.1 s = 500 req/s; a virtual thread pinned for its whole
# wait holds its carrier, so a pinned kind cannot pass carriers / 0.1 s. The server counts the pins it sees (JFR's
# jdk.VirtualThreadPinned, in /runtime). ROUNDS rounds (3) of SECONDS_PER_KIND (3) a kind, the kinds in turn on one
# server; every round is recorded and each verdict stands on their median. --short: one round of 1 s.
#
#   experiments/11-what-pins.sh [--short]       JAVA_HOMES="/jdk21 /jdk25" (spaces or colons) or JAVA_HOME
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
require_tools jq
# 3 rounds of 3 s a kind: 3 rounds of 5 s would not fit the 3 minutes the full record allows this experiment, and
# --short's 45 s allow one round of 1 s.
ROUNDS=${ROUNDS:-$(full_or_short 3 1)}
SECONDS_PER_KIND=${SECONDS_PER_KIND:-$(full_or_short 3 1)}
CLIENTS=50
WAIT_MS=100
BOOKS_RATE=50
KINDS=(none monitor lock native)
BOUND=$((CLIENTS * 1000 / WAIT_MS))
begin_experiment 11-what-pins "Which ways of waiting pin a virtual thread's carrier, and what does a pinned wait cost the server?"
BUILD_JAVA=$JAVA

homes=()
for home in ${JAVA_HOMES:-$JAVA_HOME}; do
  IFS=: read -r -a parts <<<"$home"
  homes+=("${parts[@]}")
done
jdks=()
for home in "${homes[@]}"; do
  major=$(java_major "$home/bin/java" 2>/dev/null || true)
  if [[ ${major:-0} =~ ^[0-9]+$ ]] && [ "$major" -ge 21 ]; then
    jdks+=("$home")
  else
    echo "skipped: $home (no java 21 or newer there)"
  fi
done
[ ${#jdks[@]} -gt 0 ] || { echo "no JDK 21 or newer in JAVA_HOMES or JAVA_HOME" >&2; exit 1; }
echo "jdks:     ${jdks[*]}"
echo "requests: $CLIENTS concurrent GET /catalog/lookup?ms=$WAIT_MS&inside=KIND for $SECONDS_PER_KIND s per kind"
echo "          (after $CLIENTS warm-up requests), beside GET /books at $BOOKS_RATE req/s (open loop)"
echo "rounds:   $ROUNDS, the kinds in turn in each"
echo "servers:  default carriers (virtual) and --threads platform, each in its own JVM of each JDK"
echo "bound:    Little's law $CLIENTS / ${WAIT_MS} ms = $BOUND req/s; pinned: carriers / ${WAIT_MS} ms"
echo
setting rounds "$ROUNDS"
setting seconds-per-kind "$SECONDS_PER_KIND"
setting clients "$CLIENTS"
setting wait-ms "$WAIT_MS"
setting books-rate "$BOOKS_RATE"
setting jdks "${jdks[*]}"

# runtime_field NAME: the integer NAME of the server's /runtime (pinned.events is "events").
runtime_field() {
  http_get "$SERVER_URL/runtime"
  json_num "$1" <<<"$HTTP_BODY"
}

watching() {
  http_get "$SERVER_URL/runtime"
  [[ $HTTP_BODY == *'"watching":true'* ]]
}

# settled_pins: the pin count once it has not moved for 1.2 s (JFR hands the server its events about once a second).
settled_pins() {
  local before after
  after=$(runtime_field events)
  for _ in $(seq 20); do
    before=$after
    sleep 1.2
    after=$(runtime_field events)
    [ "$after" = "$before" ] && break
  done
  echo "$after"
}

rows=()
declare -A refused
for home in "${jdks[@]}"; do
  JAVA=$home/bin/java
  jdk=$(java_major "$JAVA")
  for model in virtual platform; do
    key=$jdk-$model
    options=()
    [ "$model" = platform ] && options=(--threads platform)
    start_server "$OUT/$key.server.log" "${options[@]}"
    wait_until 60 watching || { echo "jdk $jdk $model: the server never started watching for pins" >&2; exit 1; }
    [ "$model" = virtual ] && figure "carriers.$key" "$(runtime_field carriers)" "" "JDK $jdk virtual: carriers"
    for kind in "${KINDS[@]}"; do
      http_get "$SERVER_URL/catalog/lookup?ms=$WAIT_MS&inside=$kind"
      if [ "$HTTP_STATUS" != 200 ]; then
        echo "jdk $jdk $model $kind: $HTTP_STATUS $(jq -r .message <<<"$HTTP_BODY" 2>/dev/null)"
        refused[$key-$kind]=$HTTP_STATUS
      fi
    done
    pins_now=$(settled_pins)
    for ((round = 1; round <= ROUNDS; round++)); do
      for kind in "${KINDS[@]}"; do
        case=$key-$kind
        if [ -n "${refused[$case]:-}" ]; then
          for name in rate share books-p99 pins; do figure "$name.$case" -; done
          continue
        fi
        run=$OUT/$case-$round
        start_bg "$run.books.txt" "$BUILD_JAVA" -jar "$JAR" load --url "$SERVER_URL" --path /books \
          --rate "$BOOKS_RATE" --warmup-requests "$BOOKS_RATE" --duration "$((SECONDS_PER_KIND + 2))s" --json "$run.books.json"
        books_pid=$BG_PID
        JAVA=$BUILD_JAVA loan_runtime load --url "$SERVER_URL" --path "/catalog/lookup?ms=$WAIT_MS&inside=$kind" \
          --concurrency "$CLIENTS" --warmup-requests "$CLIENTS" --duration "${SECONDS_PER_KIND}s" \
          --label "JDK $jdk $model $kind" --json "$run.json" > "$run.txt"
        # The pins settle while the /books client sends its last requests (they do not pin).
        before=$pins_now
        pins_now=$(settled_pins)
        wait_pid "$books_pid" || true
        rate=$(fixed 0 "$(json_get "$run.json" .throughputPerS)")
        figure "rate.$case" "$rate" req/s "JDK $jdk $model, $kind: req/s"
        figure "share.$case" "$(calc 'a / b' "$rate" "$BOUND")" "" "JDK $jdk $model, $kind: share of Little's bound"
        figure "books-p99.$case" "$(fixed 1 "$(json_get "$run.books.json" .latencyMs.p99)")" ms \
          "JDK $jdk $model, $kind: /books p99"
        figure "pins.$case" $((pins_now - before)) events "JDK $jdk $model, $kind: pin events"
        printf 'round %d  jdk %-3s %-8s %-8s %6s req/s  /books p99 %8s ms  pinned %s\n' "$round" "$jdk" "$model" \
          "$kind" "$rate" "$(figure_values "books-p99.$case" | tail -1)" $((pins_now - before))
      done
    done
    stop_server "$SERVER_PID"
    rows+=("$key")
  done
done
JAVA=$BUILD_JAVA
echo

table results "$CLIENTS concurrent ${WAIT_MS} ms waits by where the thread waits (medians of $ROUNDS x $SECONDS_PER_KIND s)" \
  JDK threads inside req/s "of Little's $BOUND" "carrier bound req/s" "/books p99 ms" "pin events a round"
for key in "${rows[@]}"; do
  for kind in "${KINDS[@]}"; do
    cb=-
    [ "${key#*-}" = virtual ] && cb=$(fixed 0 "$(calc 'a * 1000 / b' "$(figure_median "carriers.$key")" "$WAIT_MS")")
    table_row "${key%%-*}" "${key#*-}" "$kind" "$(fixed 0 "$(figure_median "rate.$key-$kind")")" \
      "$(fixed 3 "$(figure_median "share.$key-$kind")")" "$cb" "$(fixed 1 "$(figure_median "books-p99.$key-$kind")")" \
      "${refused[$key-$kind]:-$(figure_median "pins.$key-$kind")}"
  done
done
table_end

nproc_bound=$(($(nproc) * 1000 / WAIT_MS))
for key in "${rows[@]}"; do
  jdk=${key%%-*} model=${key#*-}
  verdict_on "JDK $jdk $model: none and lock keep most of Little's bound" "share.$key-@(none|lock)" '>=' 0.6
  [ "$model" = virtual ] || continue
  if [ -z "${refused[$key-native]:-}" ]; then
    verdict_on "JDK $jdk virtual: native pins: it stays under the bound of nproc carriers" "rate.$key-native" '<=' \
      "1.5 * $nproc_bound"
  else
    verdict "JDK $jdk virtual: native pins: it stays under the bound of nproc carriers" \
      "median of rate.$key-native <= 1.5 * $nproc_bound" \
      "not measured: the server answered ${refused[$key-native]} (no FFM on JDK $jdk)"
  fi
  if [ "$jdk" -ge 24 ]; then
    verdict_on "JDK $jdk virtual: monitor does not pin: no pin events" "pins.$key-monitor" '==' 0
    verdict_on "JDK $jdk virtual: monitor does not pin: it keeps most of Little's bound" "share.$key-monitor" '>=' 0.6
  else
    verdict_on "JDK $jdk virtual: monitor pins: pin events" "pins.$key-monitor" '>' 0
    verdict_on "JDK $jdk virtual: monitor pins: it stays under the bound of nproc carriers" "rate.$key-monitor" '<=' \
      "1.5 * $nproc_bound"
  fi
done

# One bar per kind and server: the median req/s against Little's bound.
jq -n --arg kinds "${KINDS[*]}" --argjson bound "$BOUND" '{categories: ($kinds | split(" ")), series: []}' \
  > "$OUT/bars.json"
for key in "${rows[@]}"; do
  # a kind not measured is null: no bar, never a bar of 0
  values=$(for kind in "${KINDS[@]}"; do
      r=$(figure_median "rate.$key-$kind"); if num "$r"; then echo "$r"; else echo null; fi
    done | jq -s -c .)
  jq --arg name "JDK ${key%%-*} ${key#*-}" --argjson values "$values" \
    '.series += [{"label": $name, "values": $values}]' "$OUT/bars.json" > "$OUT/bars.tmp" && mv "$OUT/bars.tmp" "$OUT/bars.json"
done
loan_runtime chart bars --title "$CLIENTS concurrent ${WAIT_MS} ms waits: req/s by where the thread waits (medians)" \
  --x-label "inside" --y-label "req/s" --mark "$BOUND" --mark-label "Little's law: $CLIENTS / ${WAIT_MS} ms" \
  --out "$OUT/what-pins.png" "$OUT/bars.json"
end_experiment
