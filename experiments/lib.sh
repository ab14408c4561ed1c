# Shared by experiments/NN-*.sh (sourced, not run): finds a JDK, builds once, starts and stops servers by PID,
# and compares numbers. Every server started here is stopped on exit, whatever happens.

. "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"

loan_runtime() {
    "$JAVA" -jar "$JAR" "$@"
}

SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        stop_server "$pid"
    done
    SERVER_PIDS=()
}
trap stop_servers EXIT

# start_server LOG [--cpu N] SERVE_OPTIONS...: starts 'serve --port 0', optionally confined to CPU N with taskset;
# sets SERVER_PID and SERVER_URL.
start_server() {
    local log=$1; shift
    local prefix=()
    if [ "${1:-}" = "--cpu" ]; then
        prefix=(taskset -c "$2"); shift 2
    fi
    "${prefix[@]}" "$JAVA" -jar "$JAR" serve --port 0 "$@" > "$log" 2>&1 &
    SERVER_PID=$!
    SERVER_PIDS+=("$SERVER_PID")
    local deadline=$((SECONDS + 60))
    until grep -qs 'address=http://' "$log"; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
            echo "server did not start:" >&2; cat "$log" >&2; exit 1
        fi
        sleep 0.1
    done
    SERVER_URL=$(grep -o 'address=http://[^ ]*' "$log" | head -1 | cut -d= -f2)
}

# stop_server PID: SIGTERM (graceful), SIGKILL after 15 s.
stop_server() {
    local pid=$1 deadline=$((SECONDS + 15))
    kill -TERM "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $SECONDS -ge $deadline ]; then kill -KILL "$pid" 2>/dev/null; break; fi
        sleep 0.1
    done
    wait "$pid" 2>/dev/null || true
    local remaining=()
    for p in "${SERVER_PIDS[@]}"; do [ "$p" = "$pid" ] || remaining+=("$p"); done
    SERVER_PIDS=("${remaining[@]}")
}

# holds "A OP B": e.g. holds 0.95 '>=' "0.8 * 1.2"; exit status 0 when true.
holds() {
    awk "BEGIN { exit !(($1) $2 ($3)) }"
}

# verdict CLAIM true|false
verdict() {
    printf 'verdict: %-88s %s\n' "$1" "$2"
}

# field FILE PATTERN N: the Nth whitespace-separated field of the first line matching PATTERN.
field() {
    awk -v n="$3" "/$2/ { print \$n; exit }" "$1"
}

print_header() {
    echo "== $1 =="
    echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet HEAD -- src pom.xml experiments 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "machine: $(nproc) CPUs ($(uname -m)), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM"
    echo "load:    $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?) (load average, 1/5/15 min: other work slows every number)"
    echo "java:    $JAVA"
    "$JAVA" -version 2>&1 | sed 's/^/         /'
}
