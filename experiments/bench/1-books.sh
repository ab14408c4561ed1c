# shellcheck shell=bash
# Figure 1 of experiments/bench.sh (sourced by it): /books keep-alive throughput of one process with default
# settings, the project against the bare Helidon peer and the Node.js peer, servers pinned to CPU 0 and wrk to CPU 1.
# All servers are up at once and the timed runs alternate, so a change in the machine's other load hits each alike.
# Figures books_rps_*; targets "1 /books req/s vs Node.js" (>= 1.5) and "vs bare Helidon" (>= 0.9).

pinned
section "1. /books keep-alive throughput, one process, default settings (wrk -t$(wrk_threads) -c50)"
declare -A books_url books_pid books_rate=([project]=- [bare]=- [node]=-)
if ! $HAVE_WRK; then
  skip "figure 1 needs wrk"
else
  books_kinds=(project bare)
  if $HAVE_NODE; then books_kinds+=(node); else skip "the Node.js peer (no node)"; fi
  for kind in "${books_kinds[@]}"; do
    if [ "$kind" = project ]; then server "$OUT/1-$kind.server.log"; else peer "$kind" "$OUT/1-$kind.server.log"; fi
    books_url[$kind]=$SERVER_URL
    books_pid[$kind]=$SERVER_PID
  done
  curl -s "${books_url[project]}/books" > "$OUT/1-project.books"
  for kind in "${books_kinds[@]}"; do
    curl -s "${books_url[$kind]}/books" > "$OUT/1-$kind.books"
    if cmp -s "$OUT/1-project.books" "$OUT/1-$kind.books"; then
      echo "$kind: /books answers the project's $(wc -c < "$OUT/1-project.books") bytes"
    else
      echo "$kind: /books body DIFFERS from the project's"
    fi
  done
  for kind in "${books_kinds[@]}"; do
    "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${WARM_S}s" "${books_url[$kind]}/books" \
      > "$OUT/1-$kind.warmup.wrk" 2>&1 || true
  done
  for i in $(seq "$REPS"); do
    for kind in "${books_kinds[@]}"; do
      "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${DUR_S}s" "${books_url[$kind]}/books" \
        > "$OUT/1-$kind.$i.wrk" 2>&1 || true
      printf '%-8s run %d: %10s req/s  %s\n' "$kind" "$i" "$(wrk_rate "$OUT/1-$kind.$i.wrk")" \
        "$(wrk_errors "$OUT/1-$kind.$i.wrk")"
    done
  done
  for kind in "${books_kinds[@]}"; do
    books_rate[$kind]=$(wrk_median "1-$kind" rate)
    stop_server "${books_pid[$kind]}"
  done
  printf 'median req/s: project %s, bare Helidon %s, Node.js %s\n' "${books_rate[project]}" "${books_rate[bare]}" \
    "${books_rate[node]}"
fi
figure books_rps_project "${books_rate[project]}"
figure books_rps_bare_helidon "${books_rate[bare]}"
figure books_rps_node "${books_rate[node]}"
r=$(calc 'a / b' "${books_rate[project]}" "${books_rate[node]}")
row "1 /books req/s vs Node.js" "${books_rate[project]}" "node" "${books_rate[node]}" "$r" ">= 1.5" "$(met "$r" '>=' 1.5)"
r=$(calc 'a / b' "${books_rate[project]}" "${books_rate[bare]}")
row "1 /books req/s vs bare Helidon" "${books_rate[project]}" "bare-helidon" "${books_rate[bare]}" "$r" ">= 0.9" \
  "$(met "$r" '>=' 0.9)"
