# shellcheck shell=bash
# Figure 3 of experiments/bench.sh (sourced by it): scrypt's cost, unpinned.
#  - Through HTTP, per provider and for Node.js: one warm-up request, then SCRYPT_ROUNDS rounds of SCRYPT_SINGLE
#    sequential requests (median time) and one curl loop per core of SCRYPT_PER_CLIENT requests each: derivations/s.
#    The target is the pool's scaling, a round's rate >= 0.9 x cores x (1 / the round's single time).
#  - Without HTTP, the default provider beside Node's, in turn, SCRYPT_ROUNDS times: the CPU of one derivation
#    (median of SCRYPT_SINGLE + 2, after a warm-up; `derive --json`'s deriving thread, Node's process.cpuUsage around
#    scryptSync) and the bytes the deriving thread allocates.
#  - The young collections that 4 pooled derivations cause on an idle default server, and on one with bouncycastle
#    for comparison (-Xlog:gc, a logging flag only).
# --short leaves out bouncycastle and conscrypt.
# Figures scrypt.* (one derivation's time: a value per request; the young GCs: one run; the others: one per round);
# targets "3 scrypt/s" (>= 0.9), "3 one derivation's CPU ms" (<= 1.05 x Node.js), "3 bytes allocated per derivation"
# (< 64 KiB), "3 young GCs" (<= 2).

section "3. scrypt cost (N=65536 r=8 p=8) through HTTP: one derivation, and derivations/s with $CORES pool threads"

# curl_loop URL N: N requests, one after the other; the status code of each on a line.
curl_loop() {
  for _ in $(seq "$2"); do curl -s -o /dev/null --max-time 600 -w '%{http_code}\n' "$1"; done
}

# curl_rate URL CLIENTS PER_CLIENT FILE: derivations/s of CLIENTS curl loops of PER_CLIENT requests each, from the
# first request to the last answer; every status code goes to FILE, and any other than 200 makes the rate "-".
# curl rather than `load`: a client JVM compiling its own code would take CPU from the derivations on few cores.
curl_rate() {
  local url=$1 clients=$2 per=$3 file=$4 t0 t1 pids=() i
  t0=$(now_ms)
  for i in $(seq "$clients"); do
    start_bg "$file.$i" curl_loop "$url" "$per"
    pids+=("$BG_PID")
  done
  for i in "${pids[@]}"; do wait_pid "$i" || true; done
  t1=$(now_ms)
  cat "$file".[0-9]* > "$file"
  if [ "$(grep -c '^200$' "$file")" -ne $((clients * per)) ]; then echo -; return; fi
  calc 'a * 1e3 / b' $((clients * per)) $((t1 - t0))
}

scrypt_variants=(project:reuse)
if $EVERY_VARIANT; then scrypt_variants+=(project:bouncycastle project:conscrypt); fi
if $HAVE_NODE; then scrypt_variants+=(node); else skip "Node.js crypto.scrypt (no node)"; fi
table scrypt "scrypt through HTTP, medians of $SCRYPT_ROUNDS rounds: one derivation ($SCRYPT_SINGLE requests a round) \
and derivations/s from $CORES clients of $SCRYPT_PER_CLIENT requests each, against the pool's ideal ($CORES x 1 / one \
derivation)" \
  provider hasher "one derivation ms" "derivations/s" "ideal/s" "rate/ideal"
for variant in "${scrypt_variants[@]}"; do
  name=${variant//:/-}
  if [ "$variant" = node ]; then
    peer node "$OUT/3-$name.server.log" "UV_THREADPOOL_SIZE=$CORES"
    hasher="node crypto.scrypt"
  else
    server "$OUT/3-$name.server.log" --crypto-threads "$CORES" --scrypt "${variant#*:}"
    hasher=$(curl -s "$SERVER_URL/runtime" | sed -n 's/.*"hasher":"\([^"]*\)".*/\1/p')
  fi
  url=$SERVER_URL/member/verify-pooled
  [ "$MODE" = smoke ] || curl -s -o /dev/null --max-time 300 "$url"   # warm-up (JIT)
  for round in $(seq "$SCRYPT_ROUNDS"); do
    singles=()
    for i in $(seq "$SCRYPT_SINGLE"); do
      singles+=("$(curl -s -o /dev/null --max-time 300 -w '%{time_total}' "$url" | awk '{ printf "%.1f", $1 * 1000 }')")
      figure "scrypt.one-ms.$name" "${singles[-1]}" ms "one derivation through HTTP: $name"
    done
    figure "scrypt.rate.$name" "$(curl_rate "$url" "$CORES" "$SCRYPT_PER_CLIENT" "$OUT/3-$name.rate.$round.txt")" /s \
      "derivations/s from $CORES clients: $name"
    figure "scrypt.ideal-rate.$name" "$(calc "$CORES * 1000 / a" "$(printf '%s\n' "${singles[@]}" | median)")" /s \
      "$CORES x 1 / one derivation (this round's): $name"
  done
  ratios "scrypt.rate-over-ideal.$name" "scrypt.rate.$name" "scrypt.ideal-rate.$name"
  within "scrypt.rate-over-ideal.$name" 5%   # too close to 0.9 to call: within the runs' spread
  echo "$name: one derivation $(figure_values "scrypt.one-ms.$name" | paste -sd' ') ms"
  table_row "$name" "$hasher" "$(figure_median "scrypt.one-ms.$name")" "$(figure_median "scrypt.rate.$name")" \
    "$(figure_median "scrypt.ideal-rate.$name")" "$(figure_median "scrypt.rate-over-ideal.$name")"
  target "3 scrypt/s, pool=$CORES, $name" "$(figure_median "scrypt.rate.$name")" "ideal $CORES x 1/single" \
    "$(figure_median "scrypt.ideal-rate.$name")" "$(figure_median "scrypt.rate-over-ideal.$name")" \
    "3 scrypt through HTTP scales with the pool's threads: $name" "scrypt.rate-over-ideal.$name" '>=' 0.9
  stop_server "$SERVER_PID"
done
table_end
ratios scrypt.one-ms-ratio.vs-node scrypt.one-ms.project-reuse scrypt.one-ms.node
target "3 one derivation ms (info)" "$(figure_median scrypt.one-ms.project-reuse)" node \
  "$(figure_median scrypt.one-ms.node)" "$(figure_median scrypt.one-ms-ratio.vs-node)"

cpu_runs=$((SCRYPT_SINGLE + 2))
node_cpu_ms() {
  node -e '
    const { scryptSync } = require("node:crypto");
    const cost = { N: 65536, r: 8, p: 8, maxmem: 256 * 1024 * 1024 };
    scryptSync("password", "salt", 32, cost);
    const ms = [];
    for (let i = 0; i < Number(process.argv[1]); i++) {
      const before = process.cpuUsage();
      scryptSync("password", "salt", 32, cost);
      const used = process.cpuUsage(before);
      ms.push((used.user + used.system) / 1000);
    }
    ms.sort((a, b) => a - b);
    console.log(ms[ms.length >> 1].toFixed(1));' "$1" 2>/dev/null || echo -
}
# the project and Node.js in turn, SCRYPT_ROUNDS times: a round's ratio compares two runs of the same minute
for round in $(seq "$SCRYPT_ROUNDS"); do
  loan_runtime derive --threads "$CORES" --single "$cpu_runs" --count "$CORES" --json "$OUT/3-derive.$round.json" \
    > "$OUT/3-derive.$round.txt" 2>&1 || true
  sed 's/^/  /' "$OUT/3-derive.$round.txt"
  reuse_cpu=$(json_get "$OUT/3-derive.$round.json" .singleCpuMedianMs)
  if num "$reuse_cpu"; then reuse_cpu=$(printf '%.1f' "$reuse_cpu"); fi
  reuse_bytes=$(json_get "$OUT/3-derive.$round.json" .singleAllocatedBytes)
  if num "$reuse_bytes"; then reuse_bytes=$(printf '%.0f' "$reuse_bytes"); fi
  node_cpu=-
  if $HAVE_NODE; then node_cpu=$(node_cpu_ms "$cpu_runs"); fi
  echo "round $round: one derivation's CPU (median of $cpu_runs): project reuse $reuse_cpu ms, node $node_cpu ms;" \
     "allocated by the deriving thread: $reuse_bytes bytes"
  figure scrypt.cpu-ms.project-reuse "$reuse_cpu" ms "one derivation's CPU, median of $cpu_runs: project (reuse)"
  figure scrypt.cpu-ms.node "$node_cpu" ms "one derivation's CPU, median of $cpu_runs: node scryptSync"
  figure scrypt.allocated-bytes.project-reuse "$reuse_bytes" bytes "bytes the deriving thread allocates per derivation"
done
reuse_cpu=$(figure_median scrypt.cpu-ms.project-reuse)
node_cpu=$(figure_median scrypt.cpu-ms.node)
reuse_bytes=$(figure_median scrypt.allocated-bytes.project-reuse)
ratios scrypt.cpu-ratio.vs-node scrypt.cpu-ms.project-reuse scrypt.cpu-ms.node
within scrypt.cpu-ratio.vs-node 5%
target "3 one derivation's CPU ms, default provider" "$reuse_cpu" node "$node_cpu" \
  "$(figure_median scrypt.cpu-ratio.vs-node)" "3 one derivation costs the default provider no more CPU than Node.js" \
  scrypt.cpu-ratio.vs-node '<=' 1.05
target "3 bytes allocated per derivation" "$reuse_bytes" limit 65536 "$(calc 'a / b' "$reuse_bytes" 65536)" \
  "3 a derivation allocates little: its workspace is reused" scrypt.allocated-bytes.project-reuse '<' 65536

idle_providers=(reuse)
if $EVERY_VARIANT; then idle_providers+=(bouncycastle); fi
for provider in "${idle_providers[@]}"; do
  gc_log=$OUT/3-idle-$provider.gc
  server "$OUT/3-idle-$provider.server.log" --jvm "-Xlog:gc:file=$gc_log" --scrypt "$provider"
  curl -s -o /dev/null "$SERVER_URL/books"
  sleep 2   # past the collections of start-up
  young_before=$(grep -c 'Pause Young' "$gc_log" || true)
  loan_load --url "$SERVER_URL" --path /member/verify-pooled --concurrency 4 --requests 4 --timeout 600s \
    --json "$OUT/3-idle-$provider.load.json" > "$OUT/3-idle-$provider.load.txt" 2>&1 || true
  young_after=$(grep -c 'Pause Young' "$gc_log" || true)
  figure "scrypt.idle-young-gcs.$provider" $((young_after - young_before)) "" \
    "young collections during 4 pooled derivations on an idle server: $provider"
  echo "idle server ($(grep -o 'scrypt=.*' "$OUT/3-idle-$provider.server.log")): 4 pooled derivations" \
     "(errors $(load_errors "$OUT/3-idle-$provider.load.json")), $((young_after - young_before)) young" \
     "collections; workspaces: $(curl -s "$SERVER_URL/runtime" | grep -o '"scryptWorkspace[^,]*' | tr '\n' ' ')"
  stop_server "$SERVER_PID"
done
young=$(figure_median scrypt.idle-young-gcs.reuse)
target "3 young GCs, 4 pooled derivations, idle" "$young" limit 2 "$(calc 'a / b' "$young" 2)" \
  "3 pooled derivations on an idle default server cause next to no young collections" scrypt.idle-young-gcs.reuse \
  '<=' 2
if $EVERY_VARIANT; then
  young=$(figure_median scrypt.idle-young-gcs.bouncycastle)
  target "3 the same with bouncycastle (info)" "$young" limit 2 "$(calc 'a / b' "$young" 2)"
fi
