# shellcheck shell=bash
# The experiments' shell library. Every script under experiments/ (and .ci/run) sources this one file, from the
# project root:
#
#     #!/usr/bin/env bash
#     set -euo pipefail
#     cd "$(dirname "$0")/.."
#     source experiments/lib/init.sh
#     run_mode "$@"                                # --short or nothing
#     begin_experiment 01-demo "Do light requests wait?"   # OUT emptied; jar built; run header; record begun
#     start_server "$OUT/server.log" --carriers 1  # SERVER_PID, SERVER_URL; stopped by PID at exit, however it ends
#     loan_runtime probe --url "$SERVER_URL" --rounds 3 --json "$OUT/probe.json" > "$OUT/probe.txt"
#     while read -r _ _ _ ratio; do figure ratio "$ratio"; done < <(probe_rounds "$OUT/probe.json")
#     verdict_on "light requests wait for the heavy one" ratio '>=' 0.8
#     end_experiment                               # $OUT/record.json
#
# Sourcing it finds a JDK >= 21 (JAVA, JAVA_HOME, JAR) and sets the one EXIT trap, which empties the cleanup stack:
# every process started through start_bg (so every start_* function) and every make_temp_dir directory is undone
# when the script ends, normally, on an error under `set -e`, or on INT, TERM or HUP. Scripts never set an EXIT trap
# of their own; they push what else must happen at exit with on_exit.
#
# Start processes from the script's own shell, never inside $(...): a command substitution is a subshell, and what
# it pushes on the cleanup stack is lost with it. Each file's header and each function's comment say more.
#
# cleanup.sh  the cleanup stack and processes
#   on_exit CMD...                 run CMD at exit (after everything pushed later)
#   forget_on_exit CMD...          drop that entry again (its work is done)
#   start_bg LOG CMD...            CMD in the background, output to LOG, stopped at exit; sets BG_PID
#   stop_pid PID [SIG] [GRACE_S]   SIG (TERM), SIGKILL after GRACE_S (15), reap, drop from the stack
#   stop_pids PID...               the same for several at once
#   wait_pid PID                   wait for a child to exit by itself; returns its status
#   is_running PID                 alive and not a zombie
#   running_pids PID...            those of the PIDs that run
#   make_temp_dir                  a temporary directory, removed at exit; sets TEMP_DIR
#   await_line LOG REGEX PID [N] [TIMEOUT_S]   wait for N lines in LOG; exit with LOG's tail if PID dies first
#   wait_until TIMEOUT_S CMD...    poll CMD every 0.1 s until it succeeds; status 1 at the deadline
# java.sh     the JDK and the jar
#   find_jdk                       the home of a JDK >= 21: JAVA_HOME, then the newest under /usr/lib/jvm
#   use_jdk                        export JAVA_HOME=$(find_jdk), JAVA=$JAVA_HOME/bin/java (init.sh calls it)
#   java_major JAVA                the feature version of a java binary (17, 21, 25)
#   build_once                     mvn package when target/loan-runtime.jar is missing or older than the sources
#   netty_libs                     the Netty peer's libraries in target/netty-libs (experiments/peers/netty/pom.xml)
#   browser_libs                   Selenium in target/browser-libs (experiments/peers/browser/pom.xml)
#   loan_runtime ARG...            java -jar target/loan-runtime.jar ARG...
# lines.sh    the status lines servers and primaries print (their Java side: protocol/StatusLines)
#   LINE_SERVING, LINE_CLUSTER_READY, LINE_STANDING_BY, LINE_RESTART_DONE, LINE_REPLACED   regexes for await_line
#   serving_url LOG, serves_pid LOG PID   a serving line's address; whether PID printed one
#   announced_workers LOG          every worker and spare pid a primary's log announced
#   spares_standing_by LOG, warm_spares LOG   spares started and not promoted; spares reported warm
#   standby_ms LOG                 per spare reported warm: ms from its start until it stood by
#   slot_pids LOG [N]              the pids that held worker slot N (every slot), in order
#   promotion_ms LOG               per promoted spare: ms until it listened
#   restarts_done LOG, restart_steps LOG   rolling restarts done; workers they replaced
#   step_ms LOG N                  the Nth rolling-restart step's ms (promotion to the old worker's exit)
# servers.sh  servers, clusters, peers, Redis, HAProxy
#   start_server LOG [--cpu C] [--jvm F]... OPTION...   `serve --port 0`; sets SERVER_PID, SERVER_URL
#   start_peer bare|node|netty LOG [--cpu C] [--jvm F]... [ARG]...   a peer of experiments/peers/, the same way
#   stop_server PID [SIG]          stop a server: SIG (TERM), SIGKILL after 15 s
#   start_cluster LOG [--jvm F]... OPTION...   `cluster`, up to "cluster ready"; sets PRIMARY, CLUSTER_LOG
#   stop_cluster                   SIGTERM to the primary (SIGKILL after 30 s)
#   worker_pids                    the primary's live workers (not the spares standing by)
#   kill_logged_pids LOG           SIGKILL to every process of ours that LOG names as pid=N and still runs
#   start_redis DIR [--port P] [--password PW] [OPTION...]   redis-server (on a free port); sets REDIS_PID,
#                                  REDIS_PORT, REDIS_URL
#   redis_answers HOST PORT [PW]   status 0 when a Redis there answers PING
#   start_redis_failover DIR NAME PW SENTINEL_PW   a master, its replica, three Sentinels; sets REDIS_MASTER_PID,
#                                  REDIS_MASTER_PORT, REDIS_REPLICA_PID, REDIS_REPLICA_PORT, SENTINEL_PORTS,
#                                  SENTINEL_STORE
#   redis_cli PORT ARG..., sentinel_cli PORT ARG...   redis-cli against one of them, with its password
#   replica_in_sync PORT, sentinels_ready, sentinel_master_port   their replication and the Sentinels' view
#   start_haproxy LOG CONFIG SERVICE_PORT   HAProxy with deploy/haproxy.cfg or a copy; sets LB_URL, STATS_URL
#   haproxy_up STATS_URL COUNT     status 0 when COUNT of its hosts are UP
#   start_postgres DIR             a PostgreSQL server with a database "loans" (on a free port); sets POSTGRES_PID, POSTGRES_PORT,
#                                  POSTGRES_PASSWORD, POSTGRES_STORE
# net.sh      ports and HTTP without a process
#   free_port                      a port of 127.0.0.1 where nothing listens
#   port_in_use PORT               status 0 when something listens there
#   require_free_port PORT         exit 1, naming PORT, when something listens there
#   http_get URL                   one GET through bash's /dev/tcp; sets HTTP_STATUS, HTTP_BODY
#   json_num NAME                  N of "NAME":N in the compact JSON on stdin
#   json_pid                       N of "pid":N in the JSON on stdin
#   tcp_counter NAME               the kernel's TcpExt counter NAME, e.g. TCPMigrateReqFailure (0 when absent)
# timing.sh   start-up and replacement times
#   now_ms                         wall-clock milliseconds, without a process
#   first_answer_ms URL CMD...     start CMD, poll URL every 5 ms: ms to its first 200; CMD stopped after
#                                  (CPU_FILE=F: its CPU time then, and its JIT threads' part, into F)
#                                  (THEN_TIMES=F: then THEN_N (1000) requests on one connection, each one's s into F)
#   process_cpu_ms PID             "TOTAL JIT": PID's CPU time in ms, and its JIT compiler threads' part
#   warm_up_costs FILE [K]         "COLD WARM COST" ms: mean of the first K times, of the last K, the excess summed
#   replacement_ms URL PID [PID]...   SIGKILL PID: ms until a pid not seen before answers URL
# load.sh     curl clients, a new connection per request
#   curl_requests N URL [CURL_OPTION...]   N requests from one curl; each answer's body on a line
#   curl_clients PREFIX CLIENTS N URL [CURL_OPTION...]   N requests from CLIENTS curl_requests at once; waits
#   ask_each_worker WORKERS URL FILE [CURL_OPTION...]   requests URL until WORKERS pids answered (60 at most)
#   start_curl_load PREFIX N URL [MAX] [keep-alive]   N curl loops on URL; lines in PREFIX.1..N; adds to LOAD_PIDS
#   stop_curl_load                 stop them
#   load_counts PREFIX             "ok failed"
#   load_failures PREFIX           the failed requests by status and curl exit code, or "none"
#   lost_count PREFIX              the failed requests that reached a server (all but curl exit 7, refused)
#   start_timed_load PREFIX N URL [MAX]   N timed_client loops on URL (a curl a request); lines in PREFIX.1..N
#   timed_client URL STOPFILE MAX [CURL_OPTION...]   "START_S END_S CODE EXIT BODY" a request, until STOPFILE or MAX
#   stop_timed_load PREFIX...      PREFIX.stop, then wait for every timed client's request in flight
#   await_timed_load               wait until every timed client has sent its MAX requests
#   timed_counts PREFIX...         "ok failed"
#   timed_failures PREFIX          the failed requests by status, curl exit code and "error", or "none"
#   timed_p99_ms PREFIX, timed_gap_ms PREFIX   the p99 of the requests' times; the longest time without a 200
# numbers.sh  figures
#   num VALUE                      status 0 when VALUE is a number
#   calc 'EXPR of a b c' A [B [C]]   awk arithmetic, rounded for display; "-" when an input is missing
#   fixed DECIMALS VALUE           VALUE with that many decimals; "-" when it is not a number
#   holds A OP B                   status 0 when the awk comparison (A) OP (B) is true
#   median                         the median of the numbers on stdin; "-" for none
#   field FILE REGEX N             the Nth field of FILE's first line that matches REGEX
#   json_get FILE FILTER           a jq FILTER over FILE, raw; "-" when missing or null
#   probe_rounds FILE              per round of a probe --json FILE: heavy s, light median s, light max s, light/heavy
# wrk.sh      wrk's text output
#   wrk_rate FILE                  requests per second
#   wrk_ms FILE 50%|90%|99%|max    a latency in ms (2 decimals; the percentiles need --latency)
#   wrk_errors FILE                its socket-error and non-2xx lines, joined
# report.sh   what every experiment prints
#   begin_experiment NAME QUESTION   OUT=experiments/results/NAME emptied, build_once, print_header, the record begun
#   print_header NAME              the run header: date, commit, machine, load, java, output
#   require_tools TOOL...          exit 1 naming the first TOOL that is not installed
#   truth CMD...                   "true" when CMD succeeds, else "false"
# record.sh   the run's record, $OUT/record.json (experiments/record.sh keeps it in docs/results/)
#   run_mode "$@"                  --short (RUN_MODE=short) or nothing (full); --help; else exit 2
#   full_or_short FULL SHORT       FULL or SHORT by RUN_MODE
#   setting NAME VALUE             a setting of the run
#   figure KEY VALUE [UNIT [LABEL]]   one round's value of a figure (call once per round)
#   figure_values KEY, figure_median KEY   a figure's rounds so far, their median
#   verdict CLAIM GOAL RESULT [BASIS]  "verdict: CLAIM (GOAL) RESULT (BASIS)" for a one-off observation
#   verdict_on CLAIM KEY_GLOB OP LIMIT [all]   a claim on the figures' medians (or every round), with rounds held
#   table NAME TITLE COLUMN..., table_row VALUE..., table_end   a table, printed aligned and recorded
#   cpu_idle_percent SECONDS       how idle the CPUs were over the next SECONDS
#   cpu_ticks CPU                  "BUSY ALL": ticks that CPU has spent so far (two readings: its busy share)
#   end_experiment                 writes $OUT/record.json
# cpu_pairs.sh  CPU per /books request beside bare Helidon (experiments 12 and 14)
#   PAIR_OPTIONS[KIND], PAIR_LABEL[KIND]   a kind's serve options and words
#   cpu_pairs ROUNDS PAIRS RUN_S WARM_S KIND...   fresh servers each round, pairs at once; figures ratio.KIND,
#                                  corrected.KIND, control-error
#   cpu_costs_table NAME KIND...   the table of those ratios
# selftest.sh (run, not sourced; .ci/run runs it) whether a script that fails, ends or is stopped leaves a process

if [ -z "${_LOAN_LIB_LOADED:-}" ]; then
  _LOAN_LIB_LOADED=1
  if [ "${BASH_VERSINFO[0]}" -lt 5 ]; then
    echo "experiments/lib needs bash 5 or newer (this is $BASH_VERSION)" >&2
    exit 1
  fi
  if [ ! -f experiments/lib/init.sh ]; then
    echo "source experiments/lib/init.sh from the project root (cd \"\$(dirname \"\$0\")/..\" first)" >&2
    exit 1
  fi
  source experiments/lib/cleanup.sh
  source experiments/lib/java.sh
  source experiments/lib/lines.sh
  source experiments/lib/servers.sh
  source experiments/lib/net.sh
  source experiments/lib/timing.sh
  source experiments/lib/load.sh
  source experiments/lib/numbers.sh
  source experiments/lib/wrk.sh
  source experiments/lib/report.sh
  source experiments/lib/record.sh
  source experiments/lib/cpu_pairs.sh
  trap _run_cleanup EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
  use_jdk
fi
