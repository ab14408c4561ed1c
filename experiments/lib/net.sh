# shellcheck shell=bash
# Ports, and HTTP through bash's own /dev/tcp. Part of experiments/lib (source init.sh). Only 127.0.0.1 is used.

# shellcheck disable=SC2034 # set by http_get, read by the scripts
HTTP_STATUS=000 HTTP_BODY=""

# port_in_use PORT: status 0 when something on 127.0.0.1 accepts a connection on PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port: prints a port of 127.0.0.1 where nothing listens (connection refused), picked at random below the
# kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768 up by default: the local ports of outgoing connections
# come from there, and one of them may hold the port by the time a server binds it); status 1 when 50 tries found
# none. Free when asked: a port another process takes in the meantime makes the server that wanted it fail to start,
# loudly.
free_port() {
  local port low=32768
  read -r low _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  for port in $(shuf -i 10000-$((low - 1)) -n 50); do
    if ! port_in_use "$port"; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# require_free_port PORT: exits with status 1, naming PORT, when something listens there (for scripts whose PORT
# the user may set).
require_free_port() {
  if port_in_use "$1"; then
    echo "port $1 is in use; set PORT to a free one" >&2
    exit 1
  fi
}

# json_num NAME: the integer N of "NAME":N in the compact JSON on stdin (a server's answer, e.g. /runtime's
# "derivationsRunning"); nothing when there is none. For JSON files, json_get.
json_num() {
  sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# json_pid: the pid in the JSON on stdin (the project's /status, /runtime and /loan answers).
json_pid() {
  json_num pid
}

# http_get URL: one GET of URL (http://HOST:PORT/PATH) on a new connection, within bash: no process is started, so
# a poll costs microseconds, not the milliseconds of a fork (which would be measured along on a busy machine). Sets
# HTTP_STATUS (000: no answer) and HTTP_BODY. Status 0 always.
http_get() {
  local rest=${1#http://} hostport path fd line len=0
  hostport=${rest%%/*}
  path=/${rest#*/}
  HTTP_STATUS=000
  HTTP_BODY=""
  { exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"; } 2>/dev/null || return 0
  { printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$hostport" >&"$fd"; } 2>/dev/null || true
  if read -r -t 5 -u "$fd" line 2>/dev/null; then
    HTTP_STATUS=${line:9:3}
    while read -r -t 5 -u "$fd" line 2>/dev/null && [ -n "${line%$'\r'}" ]; do
      case "${line,,}" in content-length:*) len=${line//[!0-9]/} ;; esac
    done
    if [ "$len" -gt 0 ]; then
      read -r -t 5 -N "$len" -u "$fd" HTTP_BODY 2>/dev/null || true
    else
      while read -r -t 5 -u "$fd" line 2>/dev/null && [ "${line%$'\r'}" != 0 ]; do HTTP_BODY+=$line; done
    fi
  fi
  exec {fd}>&-
}

# tcp_counter NAME: the kernel's TcpExt counter NAME (e.g. TCPMigrateReqFailure: connections queued on a closing
# listener that no other listener of the port could take, so reset), machine-wide; 0 when this kernel has none.
tcp_counter() {
  awk -v name="$1" '$1 != "TcpExt:" { next }
    !head { for (i = 2; i <= NF; i++) col[$i] = i; head = 1; next }
    name in col { v = $col[name] }
    END { print v + 0 }' /proc/net/netstat
}
