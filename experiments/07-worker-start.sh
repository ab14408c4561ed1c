#!/usr/bin/env bash
# How fast a worker starts and how fast a cluster replaces a dead one. Measures (1) process start -> first answered
# /books of `serve`, without and with the JDK's AOT cache (target/loan-runtime.aot, made by `mvn package` on JDK 25+),
# and each step of the start as the server's /runtime tells it (startMs: main, options, monitors, store, listening,
# serving; the metrics start once the listener is up), with the AOT cache the CPU time spent by the first answer (and
# the JIT's part of it), and what the first requests pay for a start without warm-up (1000 /books one after another),
# and (2) kill -9 of a cluster worker -> the first answer of a pid not seen before on /runtime (polled every 5 ms),
# with --spares 0 (a new JVM starts) and --spares 1 (a warm spare is promoted). Each slot is killed once, so every
# replacement is a first death (immediate, no back-off). Also the memory a standing-by spare costs. The floor of
# this machine: the bare Helidon peer (experiments/peers/BareHelidon.java, compiled, no project code), started the
# same way, without and with an AOT cache of its own.
# Settings (environment): RUNS (starts of each kind; 5, --short 2), PORT (a free one unless set); the cluster has 3
# workers (--short 2).
set -euo pipefail
cd "$(dirname "$0")/.."
source experiments/lib/init.sh

run_mode "$@"
RUNS=${RUNS:-$(full_or_short 5 2)}
WORKERS=$(full_or_short 3 2)
PORT=${PORT:-$(free_port)}
CACHE=target/loan-runtime.aot
require_free_port "$PORT"
begin_experiment 07-worker-start \
  "How fast does a worker start, with and without the AOT cache, and how fast is a killed worker replaced, with and without a warm spare?"
version=$(java_major "$JAVA")
if [ "$version" -ge 25 ] && { [ ! -f "$CACHE" ] || [ "$JAR" -nt "$CACHE" ]; }; then
  echo "training the AOT cache $CACHE ..."
  "$JAVA" -XX:AOTCacheOutput="$CACHE" '-Xlog:aot*=error,cds*=error' -jar "$JAR" serve --warm-up-only \
    >"$OUT/training.log" 2>&1
fi
HAVE_CACHE=false
if [ "$version" -ge 24 ] && [ -f "$CACHE" ]; then HAVE_CACHE=true; fi
# The bare peer, compiled once (the source launcher would compile it on every start), and its own cache, trained the
# way serve's is: a start, a few answers, a graceful stop (the JVM writes the cache as it exits).
# A jar, not a folder: an AOT cache takes none but an empty folder on its class path.
BARE_CLASSES="$OUT/bare-classes"
BARE_CP="$OUT/bare-helidon.jar:$JAR:target/libs/*"
BARE_CACHE="$OUT/bare-helidon.aot"
mkdir -p "$BARE_CLASSES"
"$JAVA_HOME/bin/javac" -d "$BARE_CLASSES" -cp "$JAR:target/libs/*" experiments/peers/BareHelidon.java
"$JAVA_HOME/bin/jar" --create --file "$OUT/bare-helidon.jar" -C "$BARE_CLASSES" .
if [ "$version" -ge 25 ]; then
  echo "training the bare peer's AOT cache ..."
  # writing the cache at exit takes seconds: time to finish it before SIGKILL
  STOP_WAIT_S=120 START_LOG="$OUT/bare-training.log" first_answer_ms "http://127.0.0.1:$PORT/books" \
    "$JAVA" -XX:AOTCacheOutput="$BARE_CACHE" '-Xlog:aot*=error,cds*=error' -cp "$BARE_CP" BareHelidon "$PORT" \
    >/dev/null
  [ -f "$BARE_CACHE" ] || { echo "07: the bare peer's training wrote no $BARE_CACHE" >&2; exit 1; }
fi
echo "port:    $PORT"
echo "runs:    $RUNS per kind of start; cluster: --workers $WORKERS, each slot killed once"
setting runs "$RUNS"
setting workers "$WORKERS"
echo

STEPS=(main options monitors store listening serving metrics)
# steps KIND RUNTIME_JSON: each step of the start that RUNTIME_JSON's startMs names, as a figure step.KIND.STEP.
steps() {
  local step
  for step in "${STEPS[@]}"; do
    figure "step.$1.$step" "$(jq -r --arg s "$step" '.startMs[$s] // "-"' "$2")" ms "$step, ms after exec ($1)"
  done
}

# warm_up_figures KEY WHO FILE: serve answers before any warm-up (only a cluster's spare warms up first): what its
# first requests pay for it, from the times of the 1000 /books sent one after another after the first answer.
warm_up_figures() {
  local cold warm cost
  read -r cold warm cost < <(warm_up_costs "$3")
  figure "first.$1.cold-ms" "$cold" ms "the 50 /books after the first answer, mean, $2"
  figure "first.$1.warm-ms" "$warm" ms "the 50 /books after 950 more, mean, $2"
  figure "first.$1.cost-ms" "$cost" ms "the warm-up's cost: time beyond the warm mean, summed over 1000 /books, $2"
}

echo "--- serve: process start -> first answered /books (alternating, $RUNS each) ---"
for i in $(seq "$RUNS"); do
  # not in $(...): the server it starts must be on this shell's cleanup stack
  START_LOG="$OUT/serve-plain-$i.log" THEN_GET="http://127.0.0.1:$PORT/runtime" THEN_BODY="$OUT/runtime-plain-$i.json" \
    first_answer_ms "http://127.0.0.1:$PORT/books" "$JAVA" -jar "$JAR" serve --port "$PORT" >"$OUT/start.ms"
  read -r plain <"$OUT/start.ms"
  figure start.plain "$plain" ms "serve start -> first /books, no AOT cache"
  steps plain "$OUT/runtime-plain-$i.json"
  aot=-
  if $HAVE_CACHE; then
    START_LOG="$OUT/serve-aot-$i.log" THEN_GET="http://127.0.0.1:$PORT/runtime" THEN_BODY="$OUT/runtime-aot-$i.json" \
      CPU_FILE="$OUT/start.cpu" THEN_TIMES="$OUT/first-aot-$i.txt" first_answer_ms "http://127.0.0.1:$PORT/books" \
      "$JAVA" -XX:AOTCache="$CACHE" '-Xlog:aot*=error' -jar "$JAR" serve --port "$PORT" >"$OUT/start.ms"
    read -r aot <"$OUT/start.ms"
    figure start.aot "$aot" ms "serve start -> first /books, AOT cache"
    read -r cpu jit <"$OUT/start.cpu"
    figure start.aot.cpu "$cpu" ms "serve's CPU time at its first answer, AOT cache"
    figure start.aot.jit-cpu "$jit" ms "of it, the JIT compiler threads', AOT cache"
    warm_up_figures aot "serve, AOT cache" "$OUT/first-aot-$i.txt"
    steps aot "$OUT/runtime-aot-$i.json"
  fi
  START_LOG="$OUT/bare-plain-$i.log" first_answer_ms "http://127.0.0.1:$PORT/books" \
    "$JAVA" -cp "$BARE_CP" BareHelidon "$PORT" >"$OUT/start.ms"
  read -r bare_plain <"$OUT/start.ms"
  figure start.bare-plain "$bare_plain" ms "bare Helidon start -> first /books, no AOT cache"
  bare_aot=-
  if [ -f "$BARE_CACHE" ]; then
    START_LOG="$OUT/bare-aot-$i.log" CPU_FILE="$OUT/start.cpu" THEN_TIMES="$OUT/first-bare-aot-$i.txt" \
      first_answer_ms "http://127.0.0.1:$PORT/books" \
      "$JAVA" -XX:AOTCache="$BARE_CACHE" '-Xlog:aot*=error' -cp "$BARE_CP" BareHelidon "$PORT" >"$OUT/start.ms"
    read -r bare_aot <"$OUT/start.ms"
    figure start.bare-aot "$bare_aot" ms "bare Helidon start -> first /books, its AOT cache"
    read -r cpu jit <"$OUT/start.cpu"
    figure start.bare-aot.cpu "$cpu" ms "bare Helidon's CPU time at its first answer, its AOT cache"
    figure start.bare-aot.jit-cpu "$jit" ms "of it, the JIT compiler threads', its AOT cache"
    warm_up_figures bare-aot "bare Helidon, its AOT cache" "$OUT/first-bare-aot-$i.txt"
  fi
  echo "  run $i: no cache $plain ms, AOT cache $aot ms; bare Helidon: no cache $bare_plain ms, its cache $bare_aot ms"
done

if $HAVE_CACHE; then
  figure_per_round start.plain-over-aot 'a / b' start.plain start.aot "" "start without the cache / with it"
fi
if $HAVE_CACHE && [ -f "$BARE_CACHE" ]; then
  figure_per_round start.aot-over-bare-aot 'a / b' start.aot start.bare-aot "" \
    "serve's start over bare Helidon's, each with its AOT cache"
fi

# memory LOG: the resident memory (MiB) of the first standing-by spare and of worker 1, as figures.
memory() {
  local spare worker
  spare=$(warm_spares "$1" | head -1)
  worker=$(slot_pids "$1" 1 | tail -1)
  rss() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
  figure memory.spare "$(rss "$spare")" MiB "resident memory of a standing-by spare"
  figure memory.worker "$(rss "$worker")" MiB "resident memory of a worker that served the kills' polls"
  echo "  memory: spare pid=$spare RSS $(figure_median memory.spare) MiB (a worker that served the kills' polls:" \
    "$(figure_median memory.worker) MiB)"
}

# kill_each_slot SPARES KEY LABEL: a cluster with SPARES spares; kills worker 1, 2 ... in turn, each time to a new
# answer a round of figure KEY.
kill_each_slot() {
  local spares=$1 key=$2 label=$3 log="$OUT/cluster-spares-$1.log" k victim known ms
  start_cluster "$log" --workers "$WORKERS" --spares "$spares" --port "$PORT"
  for k in $(seq "$WORKERS"); do
    # With a spare: replace only when one stands by, the cluster's steady state.
    if [ "$spares" -gt 0 ]; then await_line "$log" "$LINE_STANDING_BY" "$PRIMARY" "$k"; fi
    if [ "$spares" -gt 0 ] && [ "$k" -eq 1 ]; then memory "$log"; fi
    # the slot's current pid: its first, unless the primary replaced a worker that was not ready in time
    victim=$(slot_pids "$log" "$k" | tail -1)
    known=$(slot_pids "$log")
    # shellcheck disable=SC2086 # one pid a word
    ms=$(replacement_ms "http://127.0.0.1:$PORT/runtime" "$victim" $known)
    figure "$key" "$ms" ms "$label"
    echo "  --spares $spares, kill -9 of worker $k pid=$victim: a new pid answered after $ms ms"
  done
  grep -E "died pid=|is now spare|listening .* after its promotion" "$log" | sed 's/^/    /'
  stop_cluster
}

echo "--- cluster: kill -9 of a worker -> a new pid answers /runtime ---"
kill_each_slot 0 replace.new-jvm "kill -9 -> a new pid answers, --spares 0 (a new JVM)"
kill_each_slot 1 replace.spare "kill -9 -> a new pid answers, --spares 1 (a promoted spare)"
while read -r ms; do
  figure promotion "$ms" ms "promotion -> the spare listens (primary's log)"
done < <(promotion_ms "$OUT/cluster-spares-1.log")
# each slot's kill is a round: a new JVM's time over the spare's for the same slot
figure_per_round replace.new-jvm-over-spare 'a / b' replace.new-jvm replace.spare "" \
  "replacement by a new JVM / by a promoted spare"

echo
table times "start and replacement times (ms)" measure runs "median ms" "min ms" "max ms"
for row in "start.plain|serve start -> first /books, no AOT cache" "start.aot|serve start -> first /books, AOT cache" \
    "start.bare-plain|bare Helidon start -> first /books, no AOT cache" \
    "start.bare-aot|bare Helidon start -> first /books, its AOT cache" \
    "replace.new-jvm|kill -9 -> new pid answers, --spares 0 (new JVM)" \
    "replace.spare|kill -9 -> new pid answers, --spares 1 (promotion)" \
    "promotion|promotion -> spare listening (primary's log)"; do
  IFS='|' read -r key measure <<< "$row"
  [ "$(figure_median "$key")" != - ] || continue
  table_row "$measure" "$(figure_values "$key" | wc -l)" "$(figure_median "$key")" \
    "$(figure_values "$key" | sort -g | head -1)" "$(figure_values "$key" | sort -g | tail -1)"
done
table_end
table steps "the start, step by step: ms after exec (medians; the metrics start once the listener is up, - where \
/runtime was read before they were ready)" step \
  "no AOT cache" "AOT cache"
for step in "${STEPS[@]}"; do
  table_row "$step" "$(figure_median "step.plain.$step")" "$(figure_median "step.aot.$step")"
done
table_end
table warm-up "what the first requests pay: 1000 /books one after another after the first answer (medians of $RUNS)" \
  server "first 50, mean ms" "last 50, mean ms" "cost, ms"
for row in "aot|serve, AOT cache" "bare-aot|bare Helidon, its AOT cache"; do
  IFS='|' read -r key who <<< "$row"
  [ "$(figure_median "first.$key.cold-ms")" != - ] || continue
  table_row "$who" "$(figure_median "first.$key.cold-ms")" "$(figure_median "first.$key.warm-ms")" \
    "$(figure_median "first.$key.cost-ms")"
done
table_end
table memory "resident memory (MiB), one cluster with --spares 1" process "RSS MiB"
table_row "standing-by spare" "$(figure_median memory.spare)"
table_row "worker (served the kills' polls)" "$(figure_median memory.worker)"
table_end

if $HAVE_CACHE; then
  verdict_on "the AOT cache shortens start -> first answer" start.plain-over-aot '>' 1
else
  verdict "the AOT cache shortens start -> first answer" "start.plain / start.aot > 1" \
    "not measured: JDK $version has none, or no $CACHE"
fi
# starts of the same JVM spread by a tenth here: within 5% of the goal is too close to call
verdict_on "with the AOT cache, serve answers within 0.5 s of exec" start.aot '<=' 500 within=5%
verdict_on "with an AOT cache of its own, bare Helidon answers within 0.5 s of exec (this machine's floor)" \
  start.bare-aot '<=' 500 within=5%
verdict_on "a warm spare answers within 250 ms of kill -9" replace.spare '<=' 250
verdict_on "a promoted spare replaces a worker faster than a new JVM" replace.new-jvm-over-spare '>' 1
end_experiment
