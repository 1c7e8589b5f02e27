#!/usr/bin/env bash
# ucx_floor.sh - UCX's own put latency and bandwidth between two processes of this host, the
# floor of tdist's network path (docs/RUNTIME.md, "Peers through the network"):
#
#   bench/ucx_floor.sh [ROUNDS]
#
# ucx_perftest (Debian's ucx-utils) over TCP on loopback: ucp_put_lat of 8 B (half round trip,
# median µs) and ucp_put_bw of 1 MiB (MB/s), ROUNDS times (default 2). The server side is started
# first and the client once the server's port listens. Where Open MPI's OpenSHMEM is installed
# (its oshcc answers --showme), bench/openshmem/shmem_bench.c over its UCX layer on the same link
# too: the ping-pong's half round trip (µs) and the blocking put of 1 MiB (GB/s).
set -euo pipefail
rounds=${1:-2}
command -v ucx_perftest > /dev/null || { echo "ucx_floor.sh: ucx_perftest is not installed (Debian: ucx-utils)" >&2; exit 1; }
export UCX_TLS=${UCX_TLS:-tcp}

# used PORT [STATE]: does a TCP socket of this host have local port PORT (in STATE, hex, if given:
# 0A is LISTEN)? /proc/net/tcp*: local address :PORT in hex in column 2, the state in column 4.
used() {
  local hex
  hex=$(printf ':%04X' "$1")
  awk -v p="$hex" -v st="${2:-}" \
    'NR > 1 && substr($2, length($2) - 4) == p && (st == "" || $4 == st) { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
listening() { used "$1" 0A; }

# A port no socket uses, below Linux's default range of ephemeral ports (32768-60999), where the
# connections of other jobs on this host take theirs.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 12000))
    used "$port" || { echo "$port"; return; }
  done
  echo "ucx_floor.sh: no free port" >&2
  exit 1
}

# run TEST SIZE ITERS: one server, one client; prints the client's "Final" line. The client starts
# once the server's port listens: polled for up to START_S seconds (default 60; a fresh or loaded
# machine can take seconds to start one). A server that exits before it listens (its port taken in
# the meantime) is started again on another port, three times at most.
start_s=${UCX_FLOOR_START_S:-60}
run() {
  local port server deadline
  for _ in 1 2 3; do
    port=$(free_port)
    ucx_perftest -t "$1" -s "$2" -n "$3" -p "$port" > /dev/null &
    server=$!
    deadline=$((SECONDS + start_s))
    until listening "$port"; do
      kill -0 "$server" 2> /dev/null || break
      if ((SECONDS >= deadline)); then
        kill "$server" 2> /dev/null
        echo "ucx_floor.sh: ucx_perftest's server ($1) did not listen on port $port within ${start_s} s" >&2
        exit 1
      fi
      sleep 0.01
    done
    if listening "$port"; then
      timeout 60 ucx_perftest 127.0.0.1 -t "$1" -s "$2" -n "$3" -p "$port" | grep '^Final'
      wait "$server"
      return
    fi
    wait "$server" || true
  done
  echo "ucx_floor.sh: ucx_perftest's server ($1) exited three times before it listened" >&2
  exit 1
}

openmpi=""
if command -v oshcc > /dev/null && oshcc --showme > /dev/null 2>&1 && command -v oshrun > /dev/null; then
  openmpi=$(mktemp -d)
  trap 'rm -rf "$openmpi"' EXIT
  oshcc -O2 -o "$openmpi/shmem_bench" "$(dirname "${BASH_SOURCE[0]}")/openshmem/shmem_bench.c"
fi
# Open MPI's OpenSHMEM over UCX (TCP): "<ping-pong us> <1 MiB put GB/s>", or "- -" without it.
oshmem() {
  [ -n "$openmpi" ] || { echo "- -"; return; }
  SHMEM_SYMMETRIC_SIZE=160M timeout 120 oshrun --allow-run-as-root --oversubscribe --mca memory ^patcher \
    --mca spml ucx -x UCX_TLS -np 2 "$openmpi/shmem_bench" pingpong put --min-size 1M --max-size 1M \
    --repeats 5 --no-table |
    awk '/case=pingpong/ { match($0, /median_us=[0-9.]+/); p = substr($0, RSTART + 10, RLENGTH - 10) }
         /case=put / { match($0, /median_gbps=[0-9.]+/); b = substr($0, RSTART + 12, RLENGTH - 12) }
         END { print (p == "" ? "-" : p), (b == "" ? "-" : b) }'
}

printf '%-6s %14s %16s %20s %20s\n' round put_lat_us put_bw_MBps oshmem_pingpong_us oshmem_put_GBps
for round in $(seq "$rounds"); do
  lat=$(run ucp_put_lat 8 20000 | awk '{ print $3 }')
  bw=$(run ucp_put_bw 1048576 200 | awk '{ print $6 }')
  read -r ping put < <(oshmem)
  printf '%-6s %14s %16s %20s %20s\n' "$round" "$lat" "$bw" "$ping" "$put"
done
