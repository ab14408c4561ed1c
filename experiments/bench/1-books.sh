# shellcheck shell=bash
# Figure 1 of experiments/bench.sh (sourced by it): /books keep-alive throughput of one process with default
# settings, the project against the bare Helidon peer, the Node.js peer and the Netty peer (one event loop), servers
# pinned to CPU 0 and wrk to CPU 1. All servers are up at once and the timed runs alternate, so a change in the
# machine's other load hits each alike. Figures books.rate.*, books.ratio.* (one round per repetition); targets
# "1 /books req/s vs Node.js" (>= 1.5), "vs bare Helidon" (>= 0.9) and "vs Netty" (no goal: as it comes out).

pinned
section "1. /books keep-alive throughput, one process, default settings (wrk -t$(wrk_threads) -c50)"
declare -A books_url books_pid
if ! $HAVE_WRK; then
  skip "figure 1 needs wrk"
else
  books_kinds=(project bare netty)
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
      figure "books.rate.$kind" "$(wrk_rate "$OUT/1-$kind.$i.wrk")" req/s "/books keep-alive throughput: $kind"
      printf '%-8s run %d: %10s req/s  %s\n' "$kind" "$i" "$(wrk_rate "$OUT/1-$kind.$i.wrk")" \
        "$(wrk_errors "$OUT/1-$kind.$i.wrk")"
    done
  done
  for kind in "${books_kinds[@]}"; do
    stop_server "${books_pid[$kind]}"
  done
  printf 'median req/s: project %s, bare Helidon %s, Netty %s, Node.js %s\n' "$(figure_median books.rate.project)" \
    "$(figure_median books.rate.bare)" "$(figure_median books.rate.netty)" "$(figure_median books.rate.node)"
fi
ratios books.ratio.vs-node books.rate.project books.rate.node
ratios books.ratio.vs-bare books.rate.project books.rate.bare
ratios books.ratio.vs-netty books.rate.project books.rate.netty
target "1 /books req/s vs Node.js" "$(figure_median books.rate.project)" node "$(figure_median books.rate.node)" \
  "$(figure_median books.ratio.vs-node)" "1 /books keep-alive: the project serves well ahead of the Node.js peer" \
  books.ratio.vs-node '>=' 1.5
target "1 /books req/s vs bare Helidon" "$(figure_median books.rate.project)" bare-helidon \
  "$(figure_median books.rate.bare)" "$(figure_median books.ratio.vs-bare)" \
  "1 /books keep-alive: the project keeps up with bare Helidon" books.ratio.vs-bare '>=' 0.9
target "1 /books req/s vs Netty, one loop (info)" "$(figure_median books.rate.project)" netty \
  "$(figure_median books.rate.netty)" "$(figure_median books.ratio.vs-netty)"
