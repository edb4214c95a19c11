#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for one test run: initdb into a fresh temp dir, trust auth,
# listening only on a Unix socket in that dir and on 127.0.0.1 at a free port, fsync off.
#
# Usage:
#   eval "$(tools/pg-cluster.sh start)"   # prints the export lines below, progress on stderr
#   tools/pg-cluster.sh env [DIR]         # prints them again for the cluster in DIR
#   tools/pg-cluster.sh stop [DIR]        # stops the server and removes DIR (idempotent)
# DIR defaults to $RFDB_TEST_PG_DIR. `start` exports:
#   RFDB_TEST_PG_DIR      the cluster's directory (data/, server.log, the socket)
#   RFDB_TEST_PG_URL      postgresql://rfdb@<socket dir, %-encoded>:PORT/postgres
#   RFDB_TEST_PG_TCP_URL  postgresql://rfdb@127.0.0.1:PORT/postgres
# Both URLs name the superuser role `rfdb` and the database `postgres`; a test makes its own
# database (CREATE DATABASE) and swaps the last path component.
#
# The server refuses to run as root: as root it runs as $RFDB_PG_USER (default `nobody`) via
# runuser, and the directory is handed to that user; as any other user it runs directly.
# Binaries: $(pg_config --bindir), else /usr/lib/postgresql/15/bin, else PATH.
set -euo pipefail

die() {
  echo "pg-cluster: $*" >&2
  exit 1
}

marker=rfdb-pg-cluster # a file in DIR: `stop` removes only directories it made

find_bindir() {
  local d
  for d in "$(pg_config --bindir 2>/dev/null || true)" /usr/lib/postgresql/15/bin; do
    if [[ -n "$d" && -x "$d/initdb" && -x "$d/pg_ctl" ]]; then
      echo "$d"
      return
    fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return
  fi
  die "initdb not found (pg_config --bindir, /usr/lib/postgresql/15/bin, PATH): install postgresql: tools/install-deps.sh --with-postgres"
}

# Run a command as the cluster's owner, from DIR (the owner may not be able to enter $PWD).
as_owner() {
  local dir=$1
  shift
  if [[ $(id -u) -eq 0 ]]; then
    (cd "$dir" && runuser -u "${RFDB_PG_USER:-nobody}" -- "$@")
  else
    (cd "$dir" && "$@")
  fi
}

# A TCP port on 127.0.0.1 nobody listens on now (the server may still lose a race: start retries).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

print_env() {
  local dir=$1
  [[ -f "$dir/$marker" && -f "$dir/port" ]] || die "no cluster in '$dir' (start one with: tools/pg-cluster.sh start)"
  local port enc
  port=$(cat "$dir/port")
  enc=${dir//\//%2F}
  printf 'export RFDB_TEST_PG_DIR=%q\n' "$dir"
  printf 'export RFDB_TEST_PG_URL=%q\n' "postgresql://rfdb@$enc:$port/postgres"
  printf 'export RFDB_TEST_PG_TCP_URL=%q\n' "postgresql://rfdb@127.0.0.1:$port/postgres"
}

stop_cluster() {
  local dir=${1:-${RFDB_TEST_PG_DIR:-}}
  [[ -n "$dir" ]] || die "stop: which cluster? pass DIR or set RFDB_TEST_PG_DIR"
  [[ -d "$dir" ]] || return 0 # already gone
  [[ -f "$dir/$marker" ]] || die "stop: '$dir' was not made by tools/pg-cluster.sh; not removing it"
  local bindir
  bindir=$(find_bindir)
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    if ! as_owner "$dir" "$bindir/pg_ctl" stop -D "$dir/data" -m immediate -w -t 30 >/dev/null 2>&1; then
      # pg_ctl could not do it: end the postmaster this cluster started (its pid file's first line).
      local pid
      pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true)
      if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
      fi
    fi
  fi
  rm -rf -- "$dir"
  echo "pg-cluster: stopped and removed $dir" >&2
}

start_cluster() {
  local bindir dir owner
  bindir=$(find_bindir)
  # /tmp, not $TMPDIR: as root the server's user must reach the dir, and the socket path must
  # stay under the 107-byte limit of a Unix socket address.
  dir=$(mktemp -d /tmp/rfdb-pg.XXXXXX)
  touch "$dir/$marker"
  # Whatever fails from here on, leave nothing behind.
  trap 'stop_cluster "$dir" >/dev/null 2>&1 || rm -rf -- "$dir"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  if [[ $(id -u) -eq 0 ]]; then
    owner=${RFDB_PG_USER:-nobody}
    command -v runuser >/dev/null 2>&1 || die "running as root needs runuser (util-linux) to start the server as '$owner'"
    id -u "$owner" >/dev/null 2>&1 || die "no user '$owner' to run the server as (set RFDB_PG_USER)"
    chown "$owner" "$dir"
  fi
  chmod 700 "$dir"
  if ! as_owner "$dir" "$bindir/initdb" -D "$dir/data" -U rfdb --auth=trust --no-locale -E UTF8 \
    --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    die "initdb failed"
  fi
  local attempt port
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    # Settings on the command line (-c) win over postgresql.conf; only this dir's socket and loopback.
    local opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir"
    opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    opts+=" -c max_connections=200 -c shared_buffers=32MB"
    if as_owner "$dir" "$bindir/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "$opts" >/dev/null 2>&1; then
      echo "$port" >"$dir/port"
      trap - EXIT INT TERM
      echo "pg-cluster: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') in $dir," \
        "socket and 127.0.0.1:$port (stop: tools/pg-cluster.sh stop $dir)" >&2
      print_env "$dir"
      return 0
    fi
    echo "pg-cluster: start on port $port failed (attempt $attempt)" >&2
  done
  tail -n 20 "$dir/server.log" >&2 || true
  die "the server did not start (log above)"
}

case "${1:-}" in
start) start_cluster ;;
stop) stop_cluster "${2:-}" ;;
env) print_env "${2:-${RFDB_TEST_PG_DIR:-}}" ;;
*)
  echo "usage: tools/pg-cluster.sh start | stop [DIR] | env [DIR]" >&2
  exit 2
  ;;
esac
