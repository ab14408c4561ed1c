# shellcheck shell=bash
# Figure 1 of experiments/bench.sh (sourced by it): /books keep-alive cost of one process with default settings, the
# project against the bare Helidon peer, the Node.js peer and the Netty peer (one event loop), servers pinned to CPU 0
# and wrk to CPU 1. All servers are up at once and the timed runs alternate (project, bare, Netty, Node, project ...:
# BOOKS_PAIRS interleaved pairs), so a change in the machine's other load hits each alike. The primary figure is CPU
# per request: the server process's own CPU time (utime + stime from /proc) over the requests wrk counted; a busy
# neighbour slows a run but does not change what a request costs. Throughput stays as the second figure. A ratio is
# the peer's CPU per request over the project's (1.1: the project does 10% more per CPU), one per pair, stated as the
# median with its 95% bootstrap interval; wrk's CPU (CPU 1 busy) is recorded beside each run. Figures books.cpu-us.*,
# books.cpu-ratio.*, books.rate.*, books.client-busy.*; targets "1 /books per CPU vs Node.js" (>= 1.5), "vs bare
# Helidon" (>= 0.9) and "vs Netty" (no goal: as it comes out).

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
  tick_us=$((1000000 / $(getconf CLK_TCK)))
  for i in $(seq "$BOOKS_PAIRS"); do
    for kind in "${books_kinds[@]}"; do
      server_before=$(awk '{ print $14 + $15 }' "/proc/${books_pid[$kind]}/stat")
      client_before=$(cpu_ticks 1)
      "${CLIENT_CPU[@]}" wrk -t"$(wrk_threads)" -c50 -d"${DUR_S}s" "${books_url[$kind]}/books" \
        > "$OUT/1-$kind.$i.wrk" 2>&1 || true
      ticks=$(( $(awk '{ print $14 + $15 }' "/proc/${books_pid[$kind]}/stat") - server_before ))
      requests=$(wrk_requests "$OUT/1-$kind.$i.wrk")
      [ -z "$(wrk_errors "$OUT/1-$kind.$i.wrk")" ] || requests=-
      figure "books.cpu-us.$kind" "$(calc 'a * b / c' "$ticks" "$tick_us" "$requests")" us \
        "/books: the server's CPU per request (us): $kind"
      figure "books.rate.$kind" "$(wrk_rate "$OUT/1-$kind.$i.wrk")" req/s "/books keep-alive throughput: $kind"
      figure "books.client-busy.$kind" "$(cpu_busy_share "$client_before" "$(cpu_ticks 1)")" "" \
        "/books: share of CPU 1 (wrk) busy during the run: $kind"
      printf '%-8s pair %d: %10s req/s  %8s us CPU/req  client CPU %s  %s\n' "$kind" "$i" \
        "$(wrk_rate "$OUT/1-$kind.$i.wrk")" "$(figure_values "books.cpu-us.$kind" | tail -1)" \
        "$(figure_values "books.client-busy.$kind" | tail -1)" "$(wrk_errors "$OUT/1-$kind.$i.wrk")"
    done
  done
  for kind in "${books_kinds[@]}"; do
    stop_server "${books_pid[$kind]}"
  done
  printf 'median us CPU/req: project %s, bare Helidon %s, Netty %s, Node.js %s\n' \
    "$(figure_median books.cpu-us.project)" "$(figure_median books.cpu-us.bare)" "$(figure_median books.cpu-us.netty)" \
    "$(figure_median books.cpu-us.node)"
fi
# peer's CPU per request over the project's, pair by pair: above 1 the project is the cheaper
ratios books.cpu-ratio.vs-node books.cpu-us.node books.cpu-us.project
ratios books.cpu-ratio.vs-bare books.cpu-us.bare books.cpu-us.project
ratios books.cpu-ratio.vs-netty books.cpu-us.netty books.cpu-us.project
ratios books.ratio.vs-bare books.rate.project books.rate.bare
target "1 /books per CPU vs Node.js (peer us / project us)" "$(figure_median books.cpu-us.project)" node \
  "$(figure_median books.cpu-us.node)" "$(pairs_interval books.cpu-ratio.vs-node)" \
  "1 /books keep-alive: the project does well more per CPU than the Node.js peer" books.cpu-ratio.vs-node '>=' 1.5
target "1 /books per CPU vs bare Helidon (peer us / project us)" "$(figure_median books.cpu-us.project)" \
  bare-helidon "$(figure_median books.cpu-us.bare)" "$(pairs_interval books.cpu-ratio.vs-bare)" \
  "1 /books keep-alive: the project does nearly bare Helidon's work per CPU" books.cpu-ratio.vs-bare '>=' 0.9
target "1 /books per CPU vs Netty, one loop (info)" "$(figure_median books.cpu-us.project)" netty \
  "$(figure_median books.cpu-us.netty)" "$(pairs_interval books.cpu-ratio.vs-netty)"
target "1 /books req/s vs bare Helidon (info; interleaved, not concurrent)" "$(figure_median books.rate.project)" \
  bare-helidon "$(figure_median books.rate.bare)" "$(pairs_interval books.ratio.vs-bare)"
