# shellcheck shell=bash
# What a server costs per /books request beside bare Helidon, measured in pairs (experiment 12's method, which 14 uses
# too). Part of experiments/lib (source init.sh).
#
# Throughput on a shared VM drifts by a factor of two within minutes, so a pair runs two servers at the same time, on
# CPU 0, each under its own wrk -t1 -c50 on CPU 1, and compares their CPU time per request (utime + stime from /proc
# over the requests wrk counted): drift hits both alike. One of the two is always the bare Helidon peer
# (experiments/peers/BareHelidon.java: the same bytes, no project code); a second bare peer, the control (bare-2),
# measured the same way shows the method's own error, and the ratios are also given divided by it. Each JVM settles
# at a speed of its own once its JIT has compiled the request path, so every round starts all of them afresh: a
# kind's figure is the median over its processes of each process's median pair. Each server is warmed up by two wrk
# runs: the first run's connections closing makes the JIT throw away and recompile the request path, which would
# otherwise land in the first pair.
#
#   PAIR_OPTIONS[KIND]="serve options"   PAIR_LABEL[KIND]="words"   (set by the script for each KIND)
#   PAIR_POLL[KIND]=PATH   (optional) GET PATH on KIND's admin port once a second while it runs, as the live page
#                          does with /runtime; the poller runs on CPU 1, beside the clients
#   cpu_pairs ROUNDS PAIRS RUN_S WARM_S KIND...
# writes $OUT/pairs.txt and, per round, the figures ratio.KIND (bare / server CPU per request, the round's process)
# and corrected.KIND (the same divided by the control's), and control-error; prints the table of every pair.

declare -A PAIR_OPTIONS PAIR_LABEL PAIR_POLL
PAIR_LABEL[bare-2]="bare Helidon, a second copy (control)"
declare -A _PAIR_URL _PAIR_PID _PAIR_POLLER

# _pair_start ROUND KIND: starts KIND's server afresh on CPU 0 (bare and bare-2: the peer; else serve with
# PAIR_OPTIONS[KIND]).
_pair_start() {
  local round=$1 kind=$2
  # shellcheck disable=SC2086 # the options are words
  case $kind in
    bare|bare-2) start_peer bare "$OUT/$round-$kind.server.log" --cpu 0 ;;
    *) start_server "$OUT/$round-$kind.server.log" --cpu 0 ${PAIR_OPTIONS[$kind]} ;;
  esac
  _PAIR_URL[$kind]=$SERVER_URL
  _PAIR_PID[$kind]=$SERVER_PID
  _PAIR_POLLER[$kind]=""
  if [ -n "${PAIR_POLL[$kind]:-}" ]; then
    local admin
    admin=$(admin_url "$OUT/$round-$kind.server.log")
    [ -n "$admin" ] || { echo "cpu_pairs: $kind has no admin port to poll" >&2; exit 1; }
    # shellcheck disable=SC2016 # expanded by the poller's shell
    start_bg "$OUT/$round-$kind.poll.log" taskset -c 1 bash -c \
      'while :; do curl -s -o /dev/null --max-time 5 "$0" || echo "poll failed"; sleep 1; done' "$admin${PAIR_POLL[$kind]}"
    _PAIR_POLLER[$kind]=$BG_PID
  fi
}

# _pair_client NAME KIND SECONDS: wrk on CPU 1 against KIND's /books in the background, output to $OUT/NAME.wrk; sets
# BG_PID.
_pair_client() {
  start_bg "$OUT/$1.wrk" taskset -c 1 wrk -t1 -c50 -d"$3s" "${_PAIR_URL[$2]}/books"
}

# _cpu_ticks PID: the process's user + system CPU time so far, in clock ticks.
_cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# _pair_requests FILE: how many requests a wrk run completed; "-" when it failed or had errors.
_pair_requests() {
  if [ "$(wrk_errors "$1")" != "" ]; then echo -; else wrk_requests "$1"; fi
}

cpu_pairs() {
  local rounds=$1 pairs=$2 run_s=$3 warm_s=$4 round pair kind half k base_before kind_before base_client kind_client \
    client_before
  shift 4
  local kinds=(bare-2 "$@") tick_us
  tick_us=$((1000000 / $(getconf CLK_TCK)))
  : > "$OUT/pairs.txt"
  for round in $(seq "$rounds"); do
    for kind in bare "${kinds[@]}"; do _pair_start "$round" "$kind"; done
    for kind in bare "${kinds[@]}"; do
      for half in 1 2; do
        _pair_client "$round-warm$half-$kind" "$kind" $((warm_s / 2))
        wait_pid "$BG_PID" || true
      done
    done
    for pair in $(seq "$pairs"); do
      # The order rotates with the pair and the round, so that no kind always runs first after the warm-up or last
      # before the servers stop.
      for k in $(seq 0 $((${#kinds[@]} - 1))); do
        kind=${kinds[$(((round + pair + k) % ${#kinds[@]}))]}
        base_before=$(_cpu_ticks "${_PAIR_PID[bare]}"); kind_before=$(_cpu_ticks "${_PAIR_PID[$kind]}")
        client_before=$(cpu_ticks 1)
        _pair_client "$round-$pair-$kind-bare" bare "$run_s"; base_client=$BG_PID
        _pair_client "$round-$pair-$kind" "$kind" "$run_s"; kind_client=$BG_PID
        wait_pid "$base_client" || true
        wait_pid "$kind_client" || true
        echo "$round $kind $pair $(($(_cpu_ticks "${_PAIR_PID[bare]}") - base_before))" \
          "$(_pair_requests "$OUT/$round-$pair-$kind-bare.wrk") $(($(_cpu_ticks "${_PAIR_PID[$kind]}") - kind_before))" \
          "$(_pair_requests "$OUT/$round-$pair-$kind.wrk")" >> "$OUT/pairs.txt"
        # the clients' CPU (both wrk on CPU 1): when it was busy throughout, the clients set the pace
        figure "client-busy.$kind" "$(cpu_busy_share "$client_before" "$(cpu_ticks 1)")" "" \
          "share of CPU 1 (the two wrk clients) busy during a pair: ${PAIR_LABEL[$kind]}"
      done
    done
    for kind in bare "${kinds[@]}"; do
      [ -z "${_PAIR_POLLER[$kind]:-}" ] || stop_pid "${_PAIR_POLLER[$kind]}" KILL
      stop_pid "${_PAIR_PID[$kind]}" KILL
    done
  done

  echo
  echo "Per pair: CPU microseconds per request of bare Helidon and of the server beside it; the ratio bare / server is"
  echo "the server's throughput per CPU as a share of bare Helidon's (1.00: as cheap; 0.95: 5% more CPU per request)."
  table pairs "CPU per /books request, each pair: bare Helidon and the server beside it at the same time" \
    round server pair "bare CPU us/req" "server CPU us/req" "bare/server"
  : > "$OUT/ratios.txt"
  local base_ticks base_requests kind_ticks kind_requests base_us kind_us ratio
  while read -r round kind pair base_ticks base_requests kind_ticks kind_requests; do
    base_us=-; kind_us=-; ratio=-
    if [ "$base_requests" = - ] || [ "$kind_requests" = - ] || [ "$kind_ticks" -eq 0 ]; then
      echo "round $round $kind pair $pair: a wrk run failed or had errors, left out"
    else
      read -r base_us kind_us ratio < <(awk -v bt="$base_ticks" -v br="$base_requests" -v kt="$kind_ticks" \
        -v kr="$kind_requests" -v tick="$tick_us" 'BEGIN { printf "%.2f %.2f %.4f\n", bt * tick / br, kt * tick / kr,
          (bt / br) / (kt / kr) }')
    fi
    figure "us-per-request.bare-beside-$kind" "$base_us" us "bare Helidon's CPU per request beside ${PAIR_LABEL[$kind]}"
    figure "us-per-request.$kind" "$kind_us" us "CPU per request: ${PAIR_LABEL[$kind]}"
    figure "pair-ratio.$kind" "$ratio" "" "bare / server CPU per request, one pair: ${PAIR_LABEL[$kind]}"
    table_row "$round" "$kind" "$pair" "$base_us" "$kind_us" "$ratio"
    echo "$round $kind $ratio" >> "$OUT/ratios.txt"
  done < "$OUT/pairs.txt"
  table_end

  # A kind's figure in a round is its process's median pair. The control ran beside the same bare peer in the same
  # round, so dividing by it takes out what that round's peer gained from running in every pair.
  local control m
  for round in $(seq "$rounds"); do
    control=$(awk -v r="$round" '$1 == r && $2 == "bare-2" { print $3 }' "$OUT/ratios.txt" | median)
    for kind in "${kinds[@]}"; do
      m=$(awk -v r="$round" -v k="$kind" '$1 == r && $2 == k { print $3 }' "$OUT/ratios.txt" | median)
      figure "ratio.$kind" "$m" "" "bare / server CPU per request, the round's process: ${PAIR_LABEL[$kind]}"
      [ "$kind" = bare-2 ] || figure "corrected.$kind" "$(calc 'a / b' "$m" "$control")" "" \
        "the same divided by the control's: ${PAIR_LABEL[$kind]}"
    done
    figure control-error "$(calc 'a < 1 ? 1 - a : a - 1' "$control")" "" "how far the control's ratio is from 1"
  done
  for kind in "${kinds[@]}"; do
    if [ "$(figure_median "ratio.$kind")" = - ]; then
      echo "cpu_pairs: no valid pair for ${PAIR_LABEL[$kind]}" >&2
      exit 1
    fi
  done
}

# cpu_costs_table NAME KIND...: the table NAME of each kind's ratio over the rounds (median, min, max) and corrected,
# and over every pair: the median paired ratio with its 95% bootstrap interval, and how busy the clients' CPU was.
cpu_costs_table() {
  local name=$1 kind corrected sorted pairs med low high n
  shift
  table "$name" "/books throughput per CPU as a share of bare Helidon's (its CPU per request / the server's): over \
the rounds, each process's median pair; corrected: divided by the same round's control; pairs: the median of every \
pair's ratio [its 95% bootstrap interval]; client CPU: the median share of CPU 1 (both wrk) busy in a pair" \
    "server (beside bare Helidon)" median min max rounds corrected pairs "client CPU"
  for kind in bare-2 "$@"; do
    corrected=-
    [ "$kind" = bare-2 ] || corrected=$(figure_median "corrected.$kind")
    mapfile -t sorted < <(figure_values "ratio.$kind" | grep -v '^-$' | sort -g)
    mapfile -t pairs < <(figure_values "pair-ratio.$kind")
    read -r med low high n < <(loan_runtime interval "${pairs[@]}")
    table_row "${PAIR_LABEL[$kind]}" "$(figure_median "ratio.$kind")" "${sorted[0]}" "${sorted[-1]}" "${#sorted[@]}" \
      "$corrected" "$(calc a "$med") [$(calc a "$low"), $(calc a "$high")] of $n" "$(figure_median "client-busy.$kind")"
  done
  table_end
}
