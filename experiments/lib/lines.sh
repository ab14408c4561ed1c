# shellcheck shell=bash
# The status lines of the project's servers and clusters, read for the scripts in this one place. Their one
# definition is src/main/java/dev/loanruntime/protocol/StatusLines.java; StatusLinesShellTest feeds the lines that
# class prints to the functions below and checks what they read. A cluster's primary copies each worker's own lines
# behind "[worker N] " or "[spare] ". Part of experiments/lib (source init.sh).

# Regexes (grep's basic syntax) for await_line and grep -c.
# shellcheck disable=SC2034 # read by the scripts
LINE_SERVING='address=http://' LINE_CLUSTER_READY='^cluster ready$' LINE_STANDING_BY='^spare pid=[0-9]* standing by' \
  LINE_RESTART_DONE='^rolling restart done$' LINE_REPLACED='^worker [0-9]* replaced: '

# serving_url LOG: the address (http://HOST:PORT) of LOG's first serving line.
serving_url() {
  grep -o 'address=http://[^ ]*' "$1" | head -1 | cut -d= -f2
}

# admin_url LOG: the admin port's address in the first start-up line of LOG that names one (admin=http://...), or
# nothing when the server has none (--admin-port off).
admin_url() {
  grep -o 'admin=http://[^ ]*' "$1" | head -1 | cut -d= -f2
}

# serves_pid LOG PID: status 0 when LOG holds a serving line of process PID (a worker's, behind its prefix, too).
serves_pid() {
  grep -q "serving pid=$2 " "$1"
}

# announced_workers LOG: every worker and spare pid the primary's LOG announced as started, one a line.
announced_workers() {
  sed -n 's/^\(worker [0-9]*\|spare\) started pid=\([0-9]*\)$/\2/p' "$1"
}

# spares_standing_by LOG: the spares LOG announced as started and not (yet) promoted, one pid a line.
spares_standing_by() {
  sed -n 's/^spare started pid=\([0-9]*\)$/\1/p' "$1" \
    | grep -vx -f <(sed -n 's/^worker [0-9]* is now spare pid=\([0-9]*\)$/\1/p' "$1"; echo none) || true
}

# slot_pids LOG [N]: the pids that held worker slot N (every slot without N), started or promoted, in LOG's order.
slot_pids() {
  local n=${2:-[0-9]*}
  sed -n "s/^worker $n started pid=\([0-9]*\)$/\1/p; s/^worker $n is now spare pid=\([0-9]*\)$/\1/p" "$1"
}

# warm_spares LOG: the pids of the spares LOG reported warm ("standing by"), in order.
warm_spares() {
  sed -n 's/^spare pid=\([0-9]*\) standing by.*/\1/p' "$1"
}

# standby_ms LOG: for each spare LOG reported warm, the ms from its start until it stood by, one a line.
standby_ms() {
  sed -n -E 's/^spare pid=[0-9]+ standing by, ([0-9]+) ms after its start$/\1/p' "$1"
}

# promotion_ms LOG: for each promoted spare, the ms from its promotion until it listened, one a line.
promotion_ms() {
  sed -n -E 's/^worker [0-9]+ pid=[0-9]+ listening ([0-9]+) ms after its promotion$/\1/p' "$1"
}

# restarts_done LOG: how many rolling restarts LOG reports done.
restarts_done() {
  grep -c "$LINE_RESTART_DONE" "$1" || true
}

# restart_steps LOG: how many workers LOG reports replaced by rolling restarts.
restart_steps() {
  grep -c "$LINE_REPLACED" "$1" || true
}

# step_ms LOG N: the ms the Nth rolling-restart step of LOG took ("worker I replaced: ... in MS ms": the promotion
# to the old worker's exit).
step_ms() {
  sed -n -E 's/^worker [0-9]+ replaced: .* in ([0-9]+) ms$/\1/p' "$1" | sed -n "$2p"
}
