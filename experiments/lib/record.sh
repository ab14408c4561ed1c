# shellcheck shell=bash
# The run's record: what an experiment measured, kept as data. Part of experiments/lib (source init.sh).
#
# begin_experiment starts it; end_experiment writes it to $OUT/record.json: the run (experiment, question, mode,
# commit, date, duration), the machine (CPUs, memory, kernel, JDK, node, wrk ...), the load before and after, the
# settings, every figure with each round's value and their median, min and max, every table as printed, every verdict
# with its goal and what it stands on, and the charts. experiments/record.sh copies it to docs/results/, where
# `loan-runtime docs` renders its tables into README.md and docs/.
#
# A figure is one quantity; each `figure` call with the same KEY adds a round. A verdict stands on the median of
# the rounds (verdict_on) or on every round (verdict_on ... all), and says how many rounds held; a verdict on a
# one-off observation says so (verdict ... "one run"); one on interleaved pairs gives the median's 95% bootstrap
# interval (verdict_interval). Each has an outcome: held, failed, or inconclusive (some rounds held and some did not,
# the interval straddles the goal, the client was the limit, or nothing was measured).

# shellcheck disable=SC2034 # read by the scripts
RUN_MODE=full

# run_mode [ARG...]: reads a script's arguments: none for a full run, --short for a quick pass (fewer rounds, shorter
# runs: noisier figures, and verdicts that say so), -h/--help for the script's header comment. Anything else exits 2
# naming it. Sets RUN_MODE (full or short).
run_mode() {
  while [ $# -gt 0 ]; do
    case $1 in
      --short) RUN_MODE=short ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) echo "$(basename "$0"): unknown argument '$1' (allowed: --short, --help)" >&2; exit 2 ;;
    esac
    shift
  done
}

# full_or_short FULL SHORT: FULL in a full run, SHORT in a --short one, e.g. ROUNDS=${ROUNDS:-$(full_or_short 5 2)}.
full_or_short() {
  if [ "$RUN_MODE" = short ]; then echo "$2"; else echo "$1"; fi
}

# _record_start NAME QUESTION: the record's directory ($OUT/.record) and what is known before the run.
_record_start() {
  _REC=$OUT/.record
  mkdir -p "$_REC"
  : > "$_REC/figures.tsv"
  : > "$_REC/verdicts.tsv"
  : > "$_REC/settings.tsv"
  : > "$_REC/tables.list"
  _REC_T0=$SECONDS
  jq -n --arg experiment "$1" --arg question "$2" --arg mode "$RUN_MODE" \
    --arg commit "$(git rev-parse HEAD 2>/dev/null || echo unknown)" --argjson dirty "$(_code_dirty)" \
    --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson machine "$(_machine_json)" \
    --argjson tools "$(_tools_json)" --argjson load "$(_loadavg_json)" --argjson idle "$(cpu_idle_percent 1)" \
    '{experiment: $experiment, question: $question, mode: $mode, commit: $commit, dirty: $dirty, date: $date,
      machine: $machine, tools: $tools, loadBefore: $load, cpuIdleBeforePercent: $idle}' > "$_REC/start.json"
}

# _code_dirty: true when the code that runs (src, pom.xml, the scripts) differs from the commit, else false.
_code_dirty() {
  if git diff --quiet HEAD -- src pom.xml 'experiments/*.sh' 'experiments/**/*.sh' 'experiments/*.java' \
      'experiments/peers' 2>/dev/null; then echo false; else echo true; fi
}

_loadavg_json() {
  awk '{ printf "[%s, %s, %s]", $1, $2, $3 }' /proc/loadavg 2>/dev/null || echo null
}

# cpu_ticks CPU: "BUSY ALL", the clock ticks CPU (its number) has spent so far, busy and in all (from /proc/stat); two
# readings give its busy share between them, e.g. calc '(c - a) / (d - b)' BEFORE... AFTER...
cpu_ticks() {
  awk -v cpu="cpu$1" '$1 == cpu { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# cpu_busy_share "BUSY ALL" "BUSY ALL": a CPU's busy share (0 to 1) between two cpu_ticks readings of it; "-" when
# no time passed.
cpu_busy_share() {
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); t = y[2] - x[2]
    if (t > 0) printf "%.3f", (y[1] - x[1]) / t; else print "-" }'
}

# cpu_idle_percent SECONDS: the share of all CPUs' time that was idle over the next SECONDS (from /proc/stat).
cpu_idle_percent() {
  local a b
  a=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  sleep "$1"
  b=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); t = y[2] - x[2]
    printf "%.0f", (t > 0 ? 100 * (y[1] - x[1]) / t : 100) }'
}

_machine_json() {
  local virt=none hypervisor=false
  if command -v systemd-detect-virt >/dev/null; then virt=$(systemd-detect-virt --container 2>/dev/null || echo none); fi
  grep -qw hypervisor /proc/cpuinfo 2>/dev/null && hypervisor=true
  jq -n --argjson cpus "$(nproc)" --arg arch "$(uname -m)" --arg kernel "$(uname -r)" --arg virt "$virt" \
    --argjson hypervisor "$hypervisor" \
    --arg cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
    --argjson memGiB "$(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)" \
    '{cpus: $cpus, arch: $arch, cpu: $cpu, memGiB: $memGiB, kernel: $kernel, container: $virt,
      virtualMachine: $hypervisor}'
}

# _version CMD ARG...: the first line CMD ARG... prints (stdout or stderr), or null when CMD is not installed.
_version() {
  command -v "$1" >/dev/null || { echo null; return; }
  ("$@" 2>&1 || true) | head -1 | jq -R .
}

_tools_json() {
  jq -n --argjson java "$("$JAVA" -version 2>&1 | sed -n 2p | jq -R .)" --argjson node "$(_version node --version)" \
    --argjson wrk "$(_version wrk --version)" --argjson haproxy "$(_version haproxy -v)" \
    --argjson redis "$(_version redis-server --version)" \
    '{java: $java, node: $node, wrk: $wrk, haproxy: $haproxy, redis: $redis}'
}

# setting NAME VALUE: a setting of this run (rounds, concurrency ...), kept in the record beside the figures.
setting() {
  printf '%s\t%s\n' "$1" "$2" >> "$_REC/settings.tsv"
}

# figure KEY VALUE [UNIT [LABEL]]: one round's value of the figure KEY ("-" when it was not measured). Call it once
# per round, in order; UNIT (ms, s, req/s, ...) and LABEL (the words a table shows) count from the first call that
# gives them. KEY: letters, digits and . _ - (e.g. light-over-heavy.virtual-1-carrier.blocking).
figure() {
  if [[ ! $1 =~ ^[A-Za-z0-9._-]+$ ]]; then
    echo "figure: '$1' is not a figure key" >&2
    exit 2
  fi
  printf '%s\t%s\t%s\t%s\n' "$1" "${2:--}" "${3:-}" "${4:-}" >> "$_REC/figures.tsv"
}

# figure_values KEY: the values of figure KEY so far, one a line, in round order.
figure_values() {
  awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$_REC/figures.tsv"
}

# figure_keys PATTERN: the keys of the figures so far that match the glob PATTERN, once each, in order.
figure_keys() {
  local key
  cut -f1 "$_REC/figures.tsv" | awk '!seen[$0]++' | while read -r key; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ $key == $1 ]] && echo "$key"; done
}

# figure_median KEY: the median of figure KEY's rounds ("-" when none was measured).
figure_median() {
  figure_values "$1" | median
}

# verdict CLAIM GOAL RESULT [BASIS]: one line, "verdict: CLAIM (GOAL) OUTCOME (BASIS)", and into the record. RESULT is
# true, false (truth makes one from a test), or what stood in the way ("not measured: ..."); the outcome is held,
# failed, or inconclusive when nothing was measured. BASIS says what it stands on ("one run" unless given). A claim on
# figures with rounds goes through verdict_on, one on pairs through verdict_interval.
verdict() {
  local basis=${4:-one run} outcome=inconclusive
  [ "$RUN_MODE" = short ] && basis="$basis; short run"
  case $3 in true) outcome=held ;; false) outcome=failed ;; esac
  _print_verdict "$1" "$2" "$3" "$basis" "$outcome"
  printf '%s\t%s\t%s\t%s\t\t\t%s\n' "$1" "$2" "$3" "$basis" "$outcome" >> "$_REC/verdicts.tsv"
}

# _print_verdict CLAIM GOAL RESULT BASIS OUTCOME
_print_verdict() {
  local result=$5
  case $3 in true|false) ;; *) result="$5: $3" ;; esac
  printf 'verdict: %-92s %s (%s)\n' "$1 ($2)" "$result" "$4"
}

# verdict_outcome HELD ROUNDS RESULT [all]: held when the claim held in every round, failed when in none (or, with
# "all", a claim about every round, in any one), inconclusive otherwise (with 3 rounds the 95% interval of their
# median is their range, and a goal met by some rounds lies inside it); a one-off observation (ROUNDS <= 1) is held or
# failed as RESULT says; anything not measured is inconclusive.
verdict_outcome() {
  case $3 in true|false) ;; *) echo inconclusive; return ;; esac
  if [ "$2" -le 1 ]; then
    if [ "$3" = true ]; then echo held; else echo failed; fi
  elif [ "$1" -eq "$2" ]; then echo held
  elif [ "$1" -eq 0 ] || [ "${4:-}" = all ]; then echo failed
  else echo inconclusive
  fi
}

# verdict_on CLAIM PATTERN OP LIMIT [all] [client=KEY] [within=D|within=P%]: the claim that every figure whose key
# matches the glob PATTERN satisfies OP LIMIT (an awk comparison, e.g. '>=' 0.8). It stands on each figure's median, or
# with "all" on every round of every such figure; either way it says in how many rounds it held (a round holds when
# every figure holds in it). "not measured" when no such figure has a value. With client=KEY, KEY is a figure that is
# 1 in a round whose load client was the limit (load --json's .client.bound): the figure then measured the client,
# and the verdict is inconclusive whatever it says. With within=D (in the figure's unit) or within=P% (of LIMIT), a
# figure closer to LIMIT than that is too close to call on this machine: the verdict is held only when every round
# clears LIMIT by more, failed only when every round misses it by more, else inconclusive (not with "all").
verdict_on() {
  local claim=$1 pattern=$2 op=$3 limit=$4 every="" client_key="" within="" arg keys key med rounds=0 held=0 r ok result
  local basis goal
  for arg in "${@:5}"; do
    case $arg in
      all) every=all ;;
      client=?*) client_key=${arg#client=} ;;
      within=?*) within=${arg#within=} ;;
      *) echo "verdict_on: '$arg' is not 'all', 'client=KEY' or 'within=D'" >&2; exit 2 ;;
    esac
  done
  if [ -n "$within" ]; then
    if [ -n "$every" ] || [[ ! $within =~ ^[0-9]+(\.[0-9]+)?%?$ ]]; then
      echo "verdict_on: within=$within: a number or a percentage, and not with 'all'" >&2
      exit 2
    fi
    _verdict_within "$claim" "$pattern" "$op" "$limit" "$within" "$client_key"
    return
  fi
  mapfile -t keys < <(figure_keys "$pattern")
  goal="$pattern $op $limit"
  if [ -n "$every" ]; then goal="every round of $goal"; else goal="median of $goal"; fi
  result=true
  for key in "${keys[@]}"; do
    med=$(figure_median "$key")
    num "$med" || { result="not measured: no value of $key"; break; }
    if [ -z "$every" ]; then holds "$med" "$op" "$limit" || result=false; fi
    r=$(figure_values "$key" | wc -l)
    [ "$r" -gt "$rounds" ] && rounds=$r
  done
  [ ${#keys[@]} -gt 0 ] || result="not measured: no figure $pattern"
  for ((r = 1; r <= rounds; r++)); do
    ok=true
    for key in "${keys[@]}"; do
      holds "$(figure_values "$key" | sed -n "${r}p")" "$op" "$limit" || ok=false
    done
    $ok && held=$((held + 1))
  done
  if [ -n "$every" ]; then
    [ "$result" = true ] && [ "$held" -lt "$rounds" ] && result=false
    basis="every round; held in $held of $rounds"
  elif [ "$rounds" -le 1 ]; then
    basis="one run"
  else
    basis="median of $rounds rounds; held in $held of $rounds"
  fi
  [ "$RUN_MODE" = short ] && basis="$basis; short run"
  _record_verdict "$claim" "$goal" "$result" "$basis" "$held" "$rounds" \
    "$(verdict_outcome "$held" "$rounds" "$result" "$every")" "$client_key"
}

# _record_verdict CLAIM GOAL RESULT BASIS HELD ROUNDS OUTCOME CLIENT_KEY: prints the verdict and keeps it in the
# record; inconclusive whatever OUTCOME says when CLIENT_KEY (if any) is 1 in a round: the client was the limit.
_record_verdict() {
  local basis=$4 outcome=$7 bound
  if [ -n "$8" ]; then
    bound=$(figure_values "$8" | grep -c '^1$' || true)
    if [ "$bound" -gt 0 ]; then
      outcome=inconclusive
      basis="$basis; client-bound in $bound of $(figure_values "$8" | wc -l)"
    fi
  fi
  _print_verdict "$1" "$2" "$3" "$basis" "$outcome"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$basis" "$5" "$6" "$outcome" >> "$_REC/verdicts.tsv"
}

# within_counts PATTERN OP LIMIT WITHIN: "CLEARED MISSED ROUNDS" for the figures matching PATTERN: the rounds in
# which every one clears OP LIMIT by more than WITHIN (D, or P% of LIMIT), those in which one misses it by more, and
# the rounds.
within_counts() {
  local pattern=$1 op=$2 limit=$3 within=$4 band tight loose keys key value rounds=0 r cleared=0 missed=0 clears misses
  case $within in
    *%) band=$(awk -v l="$limit" -v p="${within%\%}" 'BEGIN { print (l < 0 ? -l : l) * p / 100 }') ;;
    *) band=$within ;;
  esac
  case $op in
    '<'|'<=') read -r tight loose < <(awk -v l="$limit" -v b="$band" 'BEGIN { print l - b, l + b }') ;;
    '>'|'>=') read -r tight loose < <(awk -v l="$limit" -v b="$band" 'BEGIN { print l + b, l - b }') ;;
    *) echo "within= needs <, <=, > or >=, not '$op'" >&2; exit 2 ;;
  esac
  mapfile -t keys < <(figure_keys "$pattern")
  for key in "${keys[@]}"; do
    r=$(figure_values "$key" | wc -l)
    [ "$r" -gt "$rounds" ] && rounds=$r
  done
  for ((r = 1; r <= rounds; r++)); do
    clears=true misses=false
    for key in "${keys[@]}"; do
      value=$(figure_values "$key" | sed -n "${r}p")
      holds "$value" "$op" "$tight" || clears=false
      holds "$value" "$op" "$loose" || misses=true
    done
    $clears && cleared=$((cleared + 1))
    $misses && missed=$((missed + 1))
  done
  echo "$cleared $missed $rounds"
}

# within_outcome CLEARED MISSED ROUNDS: held when every round cleared the goal, failed when every one missed it, else
# inconclusive, as with fewer than MIN_ROUNDS rounds: a figure close enough to its goal to need a band is not settled
# by one or two runs (two quick passes drew opposite outcomes from such runs).
MIN_ROUNDS=3   # the fewest rounds a verdict with a band (within=) stands on
within_outcome() {
  if [ "$3" -lt "$MIN_ROUNDS" ]; then echo inconclusive
  elif [ "$1" -eq "$3" ]; then echo held
  elif [ "$2" -eq "$3" ]; then echo failed
  else echo inconclusive
  fi
}

# _verdict_within CLAIM PATTERN OP LIMIT WITHIN CLIENT_KEY: verdict_on with a band of WITHIN around LIMIT (see there).
_verdict_within() {
  local claim=$1 pattern=$2 op=$3 limit=$4 within=$5 client_key=$6 keys key med cleared missed rounds result=true
  local basis outcome goal
  mapfile -t keys < <(figure_keys "$pattern")
  goal="median of $pattern $op $limit, within $within too close to call"
  for key in "${keys[@]}"; do
    med=$(figure_median "$key")
    num "$med" || { result="not measured: no value of $key"; break; }
    holds "$med" "$op" "$limit" || result=false
  done
  [ ${#keys[@]} -gt 0 ] || result="not measured: no figure $pattern"
  read -r cleared missed rounds < <(within_counts "$pattern" "$op" "$limit" "$within")
  if [ "$rounds" -le 1 ]; then basis="one run"; else basis="median of $rounds rounds"; fi
  basis="$basis; cleared the goal by more than $within in $cleared of $rounds, missed it by more in $missed"
  [ "$rounds" -lt "$MIN_ROUNDS" ] && basis="$basis; fewer than $MIN_ROUNDS rounds"
  [ "$RUN_MODE" = short ] && basis="$basis; short run"
  case $result in
    true|false) outcome=$(within_outcome "$cleared" "$missed" "$rounds") ;;
    *) outcome=inconclusive ;;
  esac
  _record_verdict "$claim" "$goal" "$result" "$basis" "$cleared" "$rounds" "$outcome" "$client_key"
}

# verdict_interval CLAIM KEY OP LIMIT [CLIENT_BOUND]: the claim that figure KEY, measured many times (one value per
# interleaved pair), satisfies OP LIMIT: held when the whole 95% bootstrap interval of its median does, failed when no
# part of it does, inconclusive when it straddles LIMIT, and inconclusive whatever the interval when CLIENT_BOUND is
# "client-bound" (the load client was the limit, so the figure measured the client) or when it rests on fewer than
# MIN_PAIRS pairs. Says the median and interval.
MIN_PAIRS=5   # the fewest interleaved pairs a verdict_interval stands on
verdict_interval() {
  local claim=$1 key=$2 op=$3 limit=$4 bound=${5:-} med low high n outcome result basis rounds_of_key
  mapfile -t rounds_of_key < <(figure_values "$key")
  read -r med low high n outcome < <(loan_runtime interval --goal "$op $limit" "${rounds_of_key[@]}")
  if [ "$n" -eq 0 ]; then
    result="not measured: no value of $key"
    basis="no pair"
  else
    if holds "$med" "$op" "$limit"; then result=true; else result=false; fi
    basis="median of $n pairs $(calc 'a' "$med") [$(calc 'a' "$low"), $(calc 'a' "$high")], 95% bootstrap interval"
    if [ "$n" -lt "$MIN_PAIRS" ]; then
      # the bootstrap interval of two or three values is little more than their range: no basis for a verdict
      outcome=inconclusive
      basis="$basis; fewer than $MIN_PAIRS pairs"
    fi
  fi
  if [ "$bound" = client-bound ]; then
    outcome=inconclusive
    basis="$basis; client-bound"
  fi
  [ "$RUN_MODE" = short ] && basis="$basis; short run"
  _print_verdict "$claim" "median of $key $op $limit" "$result" "$basis" "$outcome"
  printf '%s\t%s\t%s\t%s\t\t\t%s\n' "$claim" "median of $key $op $limit" "$result" "$basis" "$outcome" \
    >> "$_REC/verdicts.tsv"
}

# table NAME TITLE COLUMN...: starts a table; table_row VALUE... adds a row; table_end prints it, aligned, under
# "--- TITLE ---" and keeps it in the record as NAME.
table() {
  _TABLE_NAME=$1
  _TABLE_FILE=$_REC/table.$1.tsv
  echo "$1" >> "$_REC/tables.list"
  { echo "$2"; (IFS=$'\t'; echo "${*:3}"); } > "$_TABLE_FILE"
}

table_row() {
  (IFS=$'\t'; echo "$*") >> "$_TABLE_FILE"
}

table_end() {
  echo "--- $(head -1 "$_TABLE_FILE") ---"
  tail -n +2 "$_TABLE_FILE" | awk -F'\t' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
    END { for (r = 1; r <= NR; r++) { line = ""
            for (i = 1; i <= nf; i++) {
              v = cell[r, i]; numeric = (v ~ /^-?[0-9.,]+%?$/ || v == "-")
              line = line (i > 1 ? "  " : "") sprintf(numeric && r > 1 ? "%" w[i] "s" : "%-" w[i] "s", v) }
            sub(/ +$/, "", line); print line } }'
  echo
}

# end_experiment: writes $OUT/record.json (see the top of this file) and says where.
end_experiment() {
  local table tables=()
  while read -r table; do tables+=("$_REC/table.$table.tsv"); done < "$_REC/tables.list"
  local charts
  charts=$(cd "$OUT" && find . -maxdepth 1 -name '*.png' -printf '%f\n' | sort | jq -R . | jq -sc .)
  jq -n --slurpfile start "$_REC/start.json" --rawfile figures "$_REC/figures.tsv" \
    --rawfile verdicts "$_REC/verdicts.tsv" --rawfile settings "$_REC/settings.tsv" \
    --argjson tables "$(_tables_json "${tables[@]}")" --argjson charts "$charts" \
    --argjson load "$(_loadavg_json)" --argjson seconds $((SECONDS - _REC_T0)) '
    def lines($s): $s | split("\n") | map(select(length > 0) | split("\t"));
    def value: if test("^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$") then tonumber else null end;
    def tidy: if . == null then null else (. * 1000000 | round) / 1000000 end;
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
                       else (.[length / 2 - 1] + .[length / 2]) / 2 | tidy end;
    (lines($figures) | reduce .[] as $r ({order: [], by: {}};
        (if .by[$r[0]] == null then .order += [$r[0]] | .by[$r[0]] = {key: $r[0], unit: "", label: "", rounds: []}
         else . end)
        | .by[$r[0]].rounds += [$r[1] | value]
        | if ($r[2] // "") != "" and .by[$r[0]].unit == "" then .by[$r[0]].unit = $r[2] else . end
        | if ($r[3] // "") != "" and .by[$r[0]].label == "" then .by[$r[0]].label = $r[3] else . end)
      | [.order[] as $k | .by[$k] | (.rounds | map(select(. != null))) as $v
         | . + {median: ($v | median), min: ($v | min), max: ($v | max)}]) as $figs
    | $start[0] + {
        durationSeconds: $seconds, loadAfter: $load,
        settings: (lines($settings) | map({(.[0]): (.[1] | (value // .))}) | add // {}),
        figures: $figs, tables: $tables,
        verdicts: (lines($verdicts) | map({claim: .[0], goal: .[1], result: .[2], basis: .[3], outcome: .[6]}
                   + (if (.[4] // "") != "" then {heldRounds: (.[4] | tonumber), rounds: (.[5] | tonumber)} else {} end))),
        charts: $charts}' > "$OUT/record.json"
  echo "record:  $OUT/record.json ($(jq '.figures | length' "$OUT/record.json") figures, \
$(jq '.verdicts | length' "$OUT/record.json") verdicts, $((SECONDS - _REC_T0)) s)"
}

# _tables_json FILE...: the tables (title line, column line, row lines; tab-separated) as a JSON array.
_tables_json() {
  local file
  for file in "$@"; do
    jq -Rn --arg name "$(basename "$file" .tsv | sed 's/^table\.//')" '
      [inputs | split("\t")] as $l | {name: $name, title: $l[0][0], columns: $l[1], rows: $l[2:]}' "$file"
  done | jq -sc .
}
