#!/usr/bin/env bash
# What pins a carrier: 50 concurrent GET /catalog/lookup?ms=100&inside=KIND for each way of waiting (none, monitor,
# lock, native) beside a light /books client, on every JDK given, with virtual threads (default carriers) and with
# --threads platform. Little's law bounds the rate at 50 / 0.1 s = 500 req/s; a virtual thread pinned for its whole
# wait holds its carrier, so a pinned kind cannot pass carriers / 0.1 s. The server counts the pins it sees (JFR's
# jdk.VirtualThreadPinned, in /runtime).
#
#   experiments/11-what-pins.sh [--short]       JAVA_HOMES="/jdk21 /jdk25" (spaces or colons) or JAVA_HOME
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

SECONDS_PER_KIND=${SECONDS_PER_KIND:-5}
if [ "${1:-}" = --short ]; then
  SECONDS_PER_KIND=2
elif [ -n "${1:-}" ]; then
  echo "usage: experiments/11-what-pins.sh [--short]" >&2
  exit 2
fi
CLIENTS=50
WAIT_MS=100
BOOKS_RATE=50
KINDS=(none monitor lock native)
BOUND=$((CLIENTS * 1000 / WAIT_MS))
require_tools jq
begin_experiment 11-what-pins
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
echo "load:     $CLIENTS concurrent GET /catalog/lookup?ms=$WAIT_MS&inside=KIND for $SECONDS_PER_KIND s per kind"
echo "          (after $CLIENTS warm-up requests), beside GET /books at $BOOKS_RATE req/s (open loop)"
echo "servers:  default carriers (virtual) and --threads platform, each in its own JVM of each JDK"
echo "bound:    Little's law $CLIENTS / ${WAIT_MS} ms = $BOUND req/s; pinned: carriers / ${WAIT_MS} ms"
echo

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
declare -A rate books pins carriers
for home in "${jdks[@]}"; do
  JAVA=$home/bin/java
  jdk=$(java_major "$JAVA")
  for model in virtual platform; do
    key=$jdk-$model
    options=()
    [ "$model" = platform ] && options=(--threads platform)
    start_server "$OUT/$key.server.log" "${options[@]}"
    wait_until 60 watching || { echo "jdk $jdk $model: the server never started watching for pins" >&2; exit 1; }
    carriers[$key]=$(runtime_field carriers)
    for kind in "${KINDS[@]}"; do
      path="/catalog/lookup?ms=$WAIT_MS&inside=$kind"
      http_get "$SERVER_URL$path"
      if [ "$HTTP_STATUS" != 200 ]; then
        echo "jdk $jdk $model $kind: $HTTP_STATUS $(jq -r .message <<<"$HTTP_BODY" 2>/dev/null)"
        rate[$key-$kind]=- books[$key-$kind]=- pins[$key-$kind]="$HTTP_STATUS"
        continue
      fi
      before=$(settled_pins)
      start_bg "$OUT/$key-$kind.books.txt" "$BUILD_JAVA" -jar "$JAR" load --url "$SERVER_URL" \
        --path /books --rate "$BOOKS_RATE" --duration "$((SECONDS_PER_KIND + 2))s" --json "$OUT/$key-$kind.books.json"
      books_pid=$BG_PID
      JAVA=$BUILD_JAVA loan_runtime load --url "$SERVER_URL" --path "$path" --concurrency "$CLIENTS" \
        --warmup-requests "$CLIENTS" --duration "${SECONDS_PER_KIND}s" --label "JDK $jdk $model $kind" \
        --json "$OUT/$key-$kind.json" > "$OUT/$key-$kind.txt"
      wait_pid "$books_pid" || true
      pins[$key-$kind]=$(( $(settled_pins) - before ))
      rate[$key-$kind]=$(fixed 0 "$(json_get "$OUT/$key-$kind.json" .throughputPerS)")
      books[$key-$kind]=$(fixed 1 "$(json_get "$OUT/$key-$kind.books.json" .latencyMs.p99)")
      printf 'jdk %-3s %-8s %-8s %6s req/s  /books p99 %8s ms  pinned %s\n' "$jdk" "$model" "$kind" \
        "${rate[$key-$kind]}" "${books[$key-$kind]}" "${pins[$key-$kind]}"
    done
    stop_server "$SERVER_PID"
    rows+=("$key")
  done
done
JAVA=$BUILD_JAVA
echo

{
  echo "| JDK | threads | inside | req/s | of Little's $BOUND | carrier bound | /books p99 ms | pinned events |"
  echo "|---|---|---|---:|---:|---:|---:|---:|"
  for key in "${rows[@]}"; do
    for kind in "${KINDS[@]}"; do
      cb=$((${carriers[$key]} * 1000 / WAIT_MS))
      [ "${key#*-}" = platform ] && cb="-"
      printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "${key%%-*}" "${key#*-}" "$kind" "${rate[$key-$kind]}" \
        "$(calc 'a / b' "${rate[$key-$kind]}" "$BOUND")" "$cb" "${books[$key-$kind]}" "${pins[$key-$kind]}"
    done
  done
} | tee "$OUT/table.md"
echo

nproc_bound=$(($(nproc) * 1000 / WAIT_MS))
for key in "${rows[@]}"; do
  jdk=${key%%-*} model=${key#*-}
  verdict "JDK $jdk $model: none and lock keep >= 0.6 of Little's bound" \
    "$(holds "${rate[$key-none]}" '>=' "0.6 * $BOUND" && holds "${rate[$key-lock]}" '>=' "0.6 * $BOUND" \
      && echo true || echo false)"
  if [ "$model" = virtual ]; then
    if num "${rate[$key-native]}"; then
      verdict "JDK $jdk virtual: native stays under nproc / ${WAIT_MS} ms x 1.5 = $((nproc_bound * 3 / 2))" \
        "$(truth holds "${rate[$key-native]}" '<=' "1.5 * $nproc_bound")"
    else
      verdict "JDK $jdk virtual: native stays under nproc / ${WAIT_MS} ms x 1.5" \
        "not measured: the server answered ${pins[$key-native]} (no FFM on JDK $jdk)"
    fi
    if [ "$jdk" -ge 24 ]; then
      verdict "JDK $jdk virtual: monitor does not pin (no events, >= 0.6 of the bound)" \
        "$(holds "${pins[$key-monitor]}" '==' 0 && holds "${rate[$key-monitor]}" '>=' "0.6 * $BOUND" \
          && echo true || echo false)"
    else
      verdict "JDK $jdk virtual: monitor pins (events, <= nproc / ${WAIT_MS} ms x 1.5)" \
        "$(holds "${pins[$key-monitor]}" '>' 0 && holds "${rate[$key-monitor]}" '<=' "1.5 * $nproc_bound" \
          && echo true || echo false)"
    fi
  fi
done

# One bar per kind and server: req/s against Little's bound.
jq -n --arg kinds "${KINDS[*]}" --argjson bound "$BOUND" '{categories: ($kinds | split(" ")), series: []}' \
  > "$OUT/bars.json"
for key in "${rows[@]}"; do
  values=$(for kind in "${KINDS[@]}"; do r=${rate[$key-$kind]}; num "$r" && echo "$r" || echo 0; done | jq -s -c .)
  jq --arg name "JDK ${key%%-*} ${key#*-}" --argjson values "$values" \
    '.series += [{"label": $name, "values": $values}]' "$OUT/bars.json" > "$OUT/bars.tmp" && mv "$OUT/bars.tmp" "$OUT/bars.json"
done
loan_runtime chart bars --title "$CLIENTS concurrent ${WAIT_MS} ms waits: req/s by where the thread waits" \
  --x-label "inside" --y-label "req/s" --mark "$BOUND" --mark-label "Little's law: $CLIENTS / ${WAIT_MS} ms" \
  --out "$OUT/what-pins.png" "$OUT/bars.json"
