#!/bin/bash
# Write pgbouncer.ini and its user list from the environment, then run PgBouncer:
# DB_HOST, DB_PORT, DB_NAME, DB_USER, DB_PASSWORD (the server's), LISTEN_ADDR, LISTEN_PORT,
# POOL_SIZE (server sessions per database and user), MAX_CLIENT_CONN.
set -Eeuo pipefail
config=/tmp/pgbouncer
mkdir -p "$config"
printf '"%s" "%s"\n' "$DB_USER" "$DB_PASSWORD" >"$config/users.txt"
cat >"$config/pgbouncer.ini" <<INI
[databases]
${DB_NAME} = host=${DB_HOST} port=${DB_PORT:-5432} dbname=${DB_NAME}

[pgbouncer]
listen_addr = ${LISTEN_ADDR:-0.0.0.0}
listen_port = ${LISTEN_PORT:-6432}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${config}/users.txt
pool_mode = transaction
default_pool_size = ${POOL_SIZE:-20}
max_client_conn = ${MAX_CLIENT_CONN:-1000}
# psycopg sends none of these, but a client that does must not be refused.
ignore_startup_parameters = extra_float_digits,options
server_reset_query =
logfile =
log_connections = 0
log_disconnections = 0
INI
exec pgbouncer "$config/pgbouncer.ini"
