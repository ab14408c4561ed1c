#!/usr/bin/env bash
# How fast a worker starts and how fast a cluster replaces a dead one. Measures (1) process start -> first answered
# /books of `serve`, without and with the JDK's AOT cache (target/loan-runtime.aot, made by `mvn package` on JDK 25+),
# and (2) kill -9 of a cluster worker -> the first answer of a pid not seen before on /runtime (polled every 5 ms),
# with --spares 0 (a new JVM starts) and --spares 1 (a warm spare is promoted). Each slot is killed once, so every
# replacement is a first death (immediate, no back-off). Also the memory a standing-by spare costs.
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

RUNS=${RUNS:-5}
WORKERS=3
PORT=${PORT:-8431}
CACHE=target/loan-runtime.aot
require_free_port "$PORT"
begin_experiment 07-worker-start
version=$(java_major "$JAVA")
if [ "$version" -ge 25 ] && { [ ! -f "$CACHE" ] || [ "$JAR" -nt "$CACHE" ]; }; then
  echo "training the AOT cache $CACHE ..."
  "$JAVA" -XX:AOTCacheOutput="$CACHE" '-Xlog:aot*=error,cds*=error' -jar "$JAR" serve --warm-up-only \
    >"$OUT/training.log" 2>&1
fi
echo "port:    $PORT"
echo "runs:    $RUNS per measure; cluster: --workers $WORKERS"
echo

# stats FILE: count, median, min and max of the integers in FILE, aligned for the results table.
stats() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%5d %7d %6d %6d", NR, v[int((NR + 1) / 2)], v[1], v[NR] }'; }

echo "--- serve: process start -> first answered /books (alternating, $RUNS each) ---"
: >"$OUT/start-plain.txt"
: >"$OUT/start-aot.txt"
for i in $(seq "$RUNS"); do
  START_LOG="$OUT/serve-plain-$i.log" first_answer_ms "http://127.0.0.1:$PORT/books" \
    "$JAVA" -cp "$JAR" dev.loanruntime.Main serve --port "$PORT" >>"$OUT/start-plain.txt"
  if [ "$version" -ge 24 ] && [ -f "$CACHE" ]; then
    START_LOG="$OUT/serve-aot-$i.log" first_answer_ms "http://127.0.0.1:$PORT/books" \
      "$JAVA" -XX:AOTCache="$CACHE" '-Xlog:aot*=error' -cp "$JAR" dev.loanruntime.Main serve --port "$PORT" \
      >>"$OUT/start-aot.txt"
  fi
  echo "  run $i: no cache $(tail -1 "$OUT/start-plain.txt") ms, AOT cache $(tail -1 "$OUT/start-aot.txt" 2>/dev/null || echo -) ms"
done

# memory LOG: the resident memory of the first standing-by spare and of worker 1, to $OUT/rss.txt.
memory() {
  local spare worker
  spare=$(sed -n 's/^spare pid=\([0-9]*\) standing by.*/\1/p' "$1" | head -1)
  worker=$(sed -n 's/^worker 1 started pid=\([0-9]*\)$/\1/p' "$1" | head -1)
  rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
  echo "$(rss "$spare") $(rss "$worker")" >"$OUT/rss.txt"
  echo "  memory: spare pid=$spare RSS $(rss "$spare") MiB (a worker that served the kills' polls: $(rss "$worker") MiB)"
}

# spares_standing_by LOG N: at least N "standing by" lines in LOG.
spares_standing_by() { [ "$(grep -c "^spare pid=.* standing by" "$1")" -ge "$2" ]; }

# kill_each_slot SPARES FILE: a cluster with SPARES spares; kills worker 1, 2, 3 (their first pids) in turn.
kill_each_slot() {
  local spares=$1 file=$2 log="$OUT/cluster-spares-$1.log" k victim known ms
  : >"$file"
  start_cluster "$log" --workers "$WORKERS" --spares "$spares" --port "$PORT"
  for k in $(seq "$WORKERS"); do
    # With a spare: replace only when one stands by, the cluster's steady state.
    if [ "$spares" -gt 0 ] && ! wait_until 180 spares_standing_by "$log" "$k"; then
      echo "no spare stood by within 180 s" >&2
      exit 1
    fi
    if [ "$spares" -gt 0 ] && [ "$k" -eq 1 ]; then memory "$log"; fi
    victim=$(sed -n "s/^worker $k started pid=\([0-9]*\)$/\1/p" "$log" | head -1)
    known=$(sed -n 's/^worker [0-9]* started pid=\([0-9]*\)$/\1/p; s/^worker [0-9]* is now spare pid=\([0-9]*\)$/\1/p' "$log")
    # shellcheck disable=SC2086 # one pid a word
    ms=$(replacement_ms "http://127.0.0.1:$PORT/runtime" "$victim" $known)
    echo "$ms" >>"$file"
    echo "  --spares $spares, kill -9 of worker $k pid=$victim: a new pid answered after $ms ms"
  done
  grep -E "died pid=|is now spare|listening .* after its promotion" "$log" | sed 's/^/    /'
  stop_cluster
}

echo "--- cluster: kill -9 of a worker -> a new pid answers /runtime ---"
kill_each_slot 0 "$OUT/replace-spares-0.txt"
kill_each_slot 1 "$OUT/replace-spares-1.txt"
grep -h "listening .* after its promotion" "$OUT/cluster-spares-1.log" | sed -E 's/.*listening ([0-9]+) ms.*/\1/' \
  >"$OUT/promotion.txt"

echo
echo "# results (milliseconds)"
printf "%-52s %5s %7s %6s %6s\n" measure runs median min max
printf "%-52s %s\n" "serve start -> first /books, no AOT cache" "$(stats "$OUT/start-plain.txt")"
if [ -s "$OUT/start-aot.txt" ]; then
  printf "%-52s %s\n" "serve start -> first /books, AOT cache" "$(stats "$OUT/start-aot.txt")"
fi
printf "%-52s %s\n" "kill -9 -> new pid answers, --spares 0 (new JVM)" "$(stats "$OUT/replace-spares-0.txt")"
printf "%-52s %s\n" "kill -9 -> new pid answers, --spares 1 (promotion)" "$(stats "$OUT/replace-spares-1.txt")"
printf "%-52s %s\n" "promotion -> spare listening (primary's log)" "$(stats "$OUT/promotion.txt")"
read -r spare_mib worker_mib <"$OUT/rss.txt"
echo "memory of a standing-by spare: $spare_mib MiB RSS (worker: $worker_mib MiB)"
echo

plain=$(median <"$OUT/start-plain.txt")
cold=$(median <"$OUT/replace-spares-0.txt")
warm=$(median <"$OUT/replace-spares-1.txt")
if [ -s "$OUT/start-aot.txt" ]; then
  aot=$(median <"$OUT/start-aot.txt")
  verdict "the AOT cache shortens start -> first answer ($plain -> $aot ms, $(calc 'a / b' "$plain" "$aot")x)" \
    "$(truth holds "$aot" '<' "$plain")"
else
  verdict "the AOT cache shortens start -> first answer" "not measured: JDK $version has none, or no $CACHE"
fi
verdict "a warm spare answers within 250 ms of kill -9 (median $warm ms)" "$(truth holds "$warm" '<=' 250)"
verdict "a promoted spare replaces a worker faster than a new JVM ($cold -> $warm ms)" "$(truth holds "$warm" '<' "$cold")"
