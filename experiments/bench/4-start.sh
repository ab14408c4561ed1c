# shellcheck shell=bash
# Figure 4 of experiments/bench.sh (sourced by it): worker start (process start -> first answer of /runtime, REPS
# times: the project's serve, the same with the AOT cache the build makes on JDK 25, the Node.js peer) and replacement
# (kill -9 of a worker of a 2-worker cluster -> a pid not seen before answering, REPS times). Only a pid that answers
# on the port is a victim (a standing-by spare does not answer); the project's cluster, with its default warm spare,
# is given time for its spare to stand by before each kill: its steady state.
# Figures start.ms.*, replacement.ms.* (one round per run); target "4 kill -9 -> replacement answers ms" (<= 250 ms).

section "4. worker start (process start -> first answer) and replacement (kill -9 -> a new pid answering)"
start_kinds=(project)
AOT_CACHE=${JAR%.jar}.aot
if [ -f "$AOT_CACHE" ] && [ "$AOT_CACHE" -nt "$JAR" ]; then
  start_kinds+=(project-aot)
else
  skip "start with the AOT cache (no $AOT_CACHE newer than the jar)"
fi
if $HAVE_NODE; then start_kinds+=(node); else skip "the Node.js peer (no node)"; fi
for kind in "${start_kinds[@]}"; do
  for i in $(seq "$REPS"); do
    port=$(free_port)
    case "$kind" in
      project) cmd=("$JAVA" "${JVM_FLAGS[@]}" -jar "$JAR" serve --port "$port") ;;
      project-aot) cmd=("$JAVA" "${JVM_FLAGS[@]}" "-XX:AOTCache=$AOT_CACHE" '-Xlog:aot*=error' -jar "$JAR" serve
               --port "$port") ;;
      node) cmd=(node experiments/peers/loan-peer.js --port "$port") ;;
    esac
    START_LOG="$OUT/4-$kind-start.$i.log" first_answer_ms "http://127.0.0.1:$port/runtime" "${cmd[@]}" \
      > "$OUT/4-$kind-start.$i.ms" || echo - > "$OUT/4-$kind-start.$i.ms"
    figure "start.ms.$kind" "$(cat "$OUT/4-$kind-start.$i.ms")" ms "process start -> first answer: $kind"
  done
  echo "$kind: start -> first answer $(figure_median "start.ms.$kind") ms" \
    "(runs: $(figure_values "start.ms.$kind" | paste -sd' '))"
done

# standing_by LOG N: at least N spares of the primary's LOG stood by.
standing_by() { [ "$(grep -c "standing by" "$1")" -ge "$2" ]; }

cluster_kinds=(project)
if $HAVE_NODE; then cluster_kinds+=(node); fi
for kind in "${cluster_kinds[@]}"; do
  port=$(free_port)
  log="$OUT/4-$kind-cluster.log"
  if [ "$kind" = project ]; then
    start_cluster "$log" "${JVM_OPTS[@]}" --port "$port" --workers 2
  else
    on_exit kill_logged_pids "$log"   # the workers, should the primary not take them along
    start_bg "$log" node experiments/peers/loan-peer.js --port "$port" --cluster 2
    PRIMARY=$BG_PID
    await_line "$log" 'serving pid' "$PRIMARY" 2
  fi
  for i in $(seq "$REPS"); do
    if [ "$kind" = project ]; then wait_until 180 standing_by "$log" "$i" || true; fi
    victim=$(curl -s --max-time 5 "http://127.0.0.1:$port/runtime" | json_pid || true)
    [ -n "$victim" ] || { echo "$kind: no worker answered"; break; }
    figure "replacement.ms.$kind" "$(replacement_ms "http://127.0.0.1:$port/runtime" "$victim" || echo -)" ms \
      "kill -9 of a worker -> a new pid answering: $kind"
  done
  echo "$kind cluster: kill -9 of a worker -> new pid answering $(figure_median "replacement.ms.$kind") ms" \
    "(runs: $(figure_values "replacement.ms.$kind" | paste -sd' '))"
  stop_cluster
done
table workers "worker start and replacement: medians of $REPS runs" server "start -> first answer ms" \
  "kill -9 -> replacement answers ms"
for kind in "${start_kinds[@]}"; do
  table_row "$kind" "$(figure_median "start.ms.$kind")" "$(figure_median "replacement.ms.$kind")"
done
table_end
ratios start.ratio.vs-node start.ms.project start.ms.node
ratios start.ratio.aot-vs-node start.ms.project-aot start.ms.node
ratios replacement.ratio.vs-node replacement.ms.project replacement.ms.node
target "4 start -> first answer ms (info)" "$(figure_median start.ms.project)" node "$(figure_median start.ms.node)" \
  "$(figure_median start.ratio.vs-node)"
target "4 start, AOT cache, ms (info)" "$(figure_median start.ms.project-aot)" node "$(figure_median start.ms.node)" \
  "$(figure_median start.ratio.aot-vs-node)"
target "4 kill -9 -> replacement answers ms" "$(figure_median replacement.ms.project)" node \
  "$(figure_median replacement.ms.node)" "$(figure_median replacement.ratio.vs-node)" \
  "4 a worker killed with kill -9 is replaced quickly" replacement.ms.project '<=' 250
