# shellcheck shell=bash
# Figures: reading them from a command's text or JSON output, comparing them, taking medians. A missing figure is
# "-" and stays "-" through calc and median. Part of experiments/lib (source init.sh). json_get needs jq.

# num VALUE: status 0 when VALUE is a number (integer, decimal or with an exponent).
num() {
  [[ ${1:-} =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]
}

# calc 'EXPR of a, b, c' A [B [C]]: EXPR in awk with a, b, c bound to A, B, C, printed with 0 decimals from 100 up,
# 2 from 1 up, else 3; "-" when an input is not a number or the result is not finite. E.g. calc 'a / b' 3 4 -> 0.750
calc() {
  local expr=$1 x
  shift
  for x in "$@"; do
    num "$x" || { echo -; return; }
  done
  awk -v a="${1:-0}" -v b="${2:-0}" -v c="${3:-0}" "BEGIN { v = $expr; w = v < 0 ? -v : v
    if (w >= 100) printf \"%.0f\", v; else if (w >= 1) printf \"%.2f\", v; else printf \"%.3f\", v }" 2>/dev/null \
    | grep -v -i 'nan\|inf' || echo -
}

# fixed DECIMALS VALUE: VALUE with DECIMALS decimals (as the project's commands print their figures), or "-" when it
# is not a number. E.g. fixed 3 "$(json_get load.json .latencyMs.p99)"
fixed() {
  if num "$2"; then printf "%.${1}f\n" "$2"; else echo -; fi
}

# holds A OP B: status 0 when (A) OP (B) holds in awk, e.g. holds "$ratio" '>=' "0.8 * $limit". Status 1 when it
# does not, and when A or B is not an expression awk can compute.
holds() {
  awk "BEGIN { exit !(($1) $2 ($3)) }" 2>/dev/null
}

# median: the median of the numbers on stdin, one a line (other lines, such as "-", are ignored); the mean of the
# middle two for an even count; "-" when there is none.
median() {
  awk '/^-?[0-9.]+([eE][-+]?[0-9]+)?$/' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                              else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# field FILE REGEX N: the Nth whitespace-separated field of the first line of FILE that matches the awk REGEX (for
# the aligned text lines of probe and load), e.g. field probe.txt '^light +median' 3.
field() {
  awk -v n="$3" "/$2/ { print \$n; exit }" "$1"
}

# ok_p99 DECIMALS FILE: the p99 of the 200s of a `load --json` FILE, "-" when none was answered (load writes 0 then).
ok_p99() {
  if [ "$(json_get "$2" .succeeded)" = 0 ]; then echo -; else fixed "$1" "$(json_get "$2" .okLatencyMs.p99)"; fi
}

# json_get FILE FILTER: the jq FILTER applied to FILE, raw (strings without quotes); "-" when FILE is missing or
# unreadable or the value is null (or false). E.g. json_get load.json '.latencyMs.p99'
json_get() {
  jq -r "($2) // \"-\"" "$1" 2>/dev/null || echo -
}

# probe_rounds FILE: one line per round of a `probe --json` FILE: the round's heavy request(s) (the slowest, in s),
# the median and the maximum of its light requests (s), and median light / heavy.
probe_rounds() {
  jq -r '.rounds[] | [.requests[] | select(.kind == "heavy") | .durationMs] as $h
    | [.requests[] | select(.kind == "light") | .durationMs] | sort as $l
    | ($l | if length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end) as $m
    | ($h | max) as $hv
    | "\($hv / 1000) \($m / 1000) \($l | max / 1000) \($m / $hv)"' "$1"
}

# figure_per_round KEY EXPR KEY_A KEY_B [UNIT [LABEL]]: one round of figure KEY (record.sh) for each round of KEY_A and
# KEY_B: calc EXPR with a and b bound to that round's values ("-" where either is missing). For a verdict on how two
# figures measured side by side compare, round by round, e.g. figure_per_round ratio.x 'a / b' slow.x fast.x
figure_per_round() {
  local a b
  while IFS=$'\t' read -r a b; do
    figure "$1" "$(calc "$2" "$a" "$b")" "${5:-}" "${6:-}"
  done < <(paste <(figure_values "$3") <(figure_values "$4"))
}
