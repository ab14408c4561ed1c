# shellcheck shell=bash
# Figure 3 of experiments/bench.sh (sourced by it): scrypt's cost, unpinned.
#  - Through HTTP, per provider and for Node.js: one warm-up request, then SCRYPT_SINGLE sequential requests (median
#    time); then one curl loop per core of SCRYPT_PER_CLIENT requests each: derivations/s. The target is the pool's
#    scaling: rate >= 0.9 x cores x (1 / single time).
#  - Without HTTP, the default provider beside Node's: the CPU of one derivation (median of SCRYPT_SINGLE + 2, after a
#    warm-up; `derive --json`'s deriving thread, Node's process.cpuUsage around scryptSync) and the bytes the deriving
#    thread allocates.
#  - The young collections that 4 pooled derivations cause on an idle default server, and on one with bouncycastle
#    for comparison (-Xlog:gc, a logging flag only).
# Figures scrypt_*, idle_young_collections_*; targets "3 scrypt/s" (>= 0.9), "3 one derivation's CPU ms" (<= 1.05 x
# Node.js), "3 bytes allocated per derivation" (< 64 KiB), "3 young GCs" (<= 2).

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

scrypt_variants=(project:reuse project:bouncycastle project:conscrypt)
if $HAVE_NODE; then scrypt_variants+=(node); else skip "Node.js crypto.scrypt (no node)"; fi
declare -A one_ms pool_rate
for variant in "${scrypt_variants[@]}"; do
  name=${variant//:/-}
  if [ "$variant" = node ]; then
    peer node "$OUT/3-$name.server.log" "UV_THREADPOOL_SIZE=$CORES"
    label="node crypto.scrypt"
  else
    server "$OUT/3-$name.server.log" --crypto-threads "$CORES" --scrypt "${variant#*:}"
    label="$name ($(curl -s "$SERVER_URL/runtime" | sed -n 's/.*"hasher":"\([^"]*\)".*/\1/p'))"
  fi
  url=$SERVER_URL/member/verify-pooled
  [ "$MODE" = smoke ] || curl -s -o /dev/null --max-time 300 "$url"   # warm-up (JIT)
  times=()
  for i in $(seq "$SCRYPT_SINGLE"); do
    times+=("$(curl -s -o /dev/null --max-time 300 -w '%{time_total}' "$url" | awk '{ printf "%.1f", $1 * 1000 }')")
  done
  one_ms[$variant]=$(printf '%s\n' "${times[@]}" | median)
  pool_rate[$variant]=$(curl_rate "$url" "$CORES" "$SCRYPT_PER_CLIENT" "$OUT/3-$name.rate.txt")
  ideal=$(calc "$CORES * 1000 / a" "${one_ms[$variant]}")
  ratio=$(calc 'a / b' "${pool_rate[$variant]}" "$ideal")
  printf '%-28s one derivation %8s ms (runs: %s)   %s clients: %s derivations/s (ideal %s, ratio %s)\n' \
    "$label" "${one_ms[$variant]}" "${times[*]}" "$CORES" "${pool_rate[$variant]}" "$ideal" "$ratio"
  figure "scrypt_single_ms_$name" "${one_ms[$variant]}"
  figure "scrypt_rate_per_s_$name" "${pool_rate[$variant]}"
  row "3 scrypt/s, pool=$CORES, $name" "${pool_rate[$variant]}" "ideal $CORES x 1/single" "$ideal" "$ratio" ">= 0.9" \
    "$(met "$ratio" '>=' 0.9)"
  stop_server "$SERVER_PID"
done
r=$(calc 'a / b' "${one_ms[project:reuse]}" "${one_ms[node]:--}")
row "3 one derivation ms (info)" "${one_ms[project:reuse]}" node "${one_ms[node]:--}" "$r" "-" "-"

cpu_runs=$((SCRYPT_SINGLE + 2))
loan_runtime derive --threads "$CORES" --single "$cpu_runs" --count "$CORES" --json "$OUT/3-derive.json" \
  > "$OUT/3-derive.txt" 2>&1 || true
sed 's/^/  /' "$OUT/3-derive.txt"
reuse_cpu=$(json_get "$OUT/3-derive.json" .singleCpuMedianMs)
if num "$reuse_cpu"; then reuse_cpu=$(printf '%.1f' "$reuse_cpu"); fi
reuse_bytes=$(json_get "$OUT/3-derive.json" .singleAllocatedBytes)
if num "$reuse_bytes"; then reuse_bytes=$(printf '%.0f' "$reuse_bytes"); fi
node_cpu=-
if $HAVE_NODE; then
  node_cpu=$(node -e '
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
    console.log(ms[ms.length >> 1].toFixed(1));' "$cpu_runs" 2>/dev/null || echo -)
fi
echo "one derivation's CPU (median of $cpu_runs): project reuse $reuse_cpu ms, node $node_cpu ms;" \
   "allocated by the deriving thread: $reuse_bytes bytes"
figure scrypt_cpu_ms_project_reuse "$reuse_cpu"
figure scrypt_cpu_ms_node "$node_cpu"
figure scrypt_allocated_bytes_project_reuse "$reuse_bytes"
r=$(calc 'a / b' "$reuse_cpu" "$node_cpu")
row "3 one derivation's CPU ms, default provider" "$reuse_cpu" node "$node_cpu" "$r" "<= 1.05" "$(met "$r" '<=' 1.05)"
row "3 bytes allocated per derivation" "$reuse_bytes" "limit" 65536 "$(calc 'a / b' "$reuse_bytes" 65536)" \
  "< 64 KiB" "$(met "$reuse_bytes" '<' 65536)"

declare -A idle_young
for provider in reuse bouncycastle; do
  gc_log=$OUT/3-idle-$provider.gc
  server "$OUT/3-idle-$provider.server.log" --jvm "-Xlog:gc:file=$gc_log" --scrypt "$provider"
  curl -s -o /dev/null "$SERVER_URL/books"
  sleep 2   # past the collections of start-up
  young_before=$(grep -c 'Pause Young' "$gc_log" || true)
  loan_load --url "$SERVER_URL" --path /member/verify-pooled --concurrency 4 --requests 4 --timeout 600s \
    --json "$OUT/3-idle-$provider.load.json" > "$OUT/3-idle-$provider.load.txt" 2>&1 || true
  young_after=$(grep -c 'Pause Young' "$gc_log" || true)
  idle_young[$provider]=$((young_after - young_before))
  echo "idle server ($(grep -o 'scrypt=.*' "$OUT/3-idle-$provider.server.log")): 4 pooled derivations" \
     "(errors $(load_errors "$OUT/3-idle-$provider.load.json")), ${idle_young[$provider]} young" \
     "collections; workspaces: $(curl -s "$SERVER_URL/runtime" | grep -o '"scryptWorkspace[^,]*' | tr '\n' ' ')"
  stop_server "$SERVER_PID"
  figure "idle_young_collections_4_derivations_$provider" "${idle_young[$provider]}"
done
row "3 young GCs, 4 pooled derivations, idle" "${idle_young[reuse]}" "limit" 2 \
  "$(calc 'a / b' "${idle_young[reuse]}" 2)" "<= 2" "$(met "${idle_young[reuse]}" '<=' 2)"
row "3 the same with bouncycastle (info)" "${idle_young[bouncycastle]}" "limit" 2 \
  "$(calc 'a / b' "${idle_young[bouncycastle]}" 2)" "-" "-"
