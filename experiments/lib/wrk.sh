# shellcheck shell=bash
# Figures from wrk's text output (wrk has no other). Part of experiments/lib (source init.sh). Each prints "-" when
# the figure is not in the file (wrk missing, failed, or run without --latency).

# wrk_rate FILE: the requests per second of the run ("Requests/sec:").
wrk_rate() {
  awk '/^Requests\/sec:/ { print $2; f = 1 } END { if (!f) print "-" }' "$1"
}

# wrk_requests FILE: how many requests the run completed ("N requests in ...").
wrk_requests() {
  awk '/ requests in / { print $1; f = 1 } END { if (!f) print "-" }' "$1"
}

# wrk_ms FILE 50%|75%|90%|99%|max: a latency in ms with 2 decimals: a percentile of the --latency distribution, or
# the largest latency (the "Latency" line of the thread statistics). wrk prints 850.00us, 12.34ms, 1.20s or 1.01m.
wrk_ms() {
  awk -v which="$2" '
    function ms(v,    unit, m) {
      unit = v; sub(/^[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v)
      m = (unit == "us") ? 0.001 : (unit == "ms") ? 1 : (unit == "s") ? 1000 : (unit == "m") ? 60000 : -1
      return m > 0 ? sprintf("%.2f", v * m) : ""
    }
    which == "max" && $1 == "Latency" && !found { r = ms($4); found = 1 }
    which != "max" && $1 == which { r = ms($2) }
    END { print (r == "" ? "-" : r) }' "$1"
}

# wrk_errors FILE: wrk's "Socket errors" and "Non-2xx" lines, each followed by "; " (empty when there is none).
wrk_errors() {
  awk '/Socket errors|Non-2xx/ { $1 = $1; printf "%s; ", $0 } END { print "" }' "$1"
}
