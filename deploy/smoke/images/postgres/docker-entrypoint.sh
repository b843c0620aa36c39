#!/bin/bash
# The official postgres image's entrypoint contract, as far as this project uses it:
# - `postgres ARGS…` (or just `-c …` options) runs the server as the postgres user;
# - an empty PGDATA is first initialised: superuser POSTGRES_USER (default postgres) with
#   POSTGRES_PASSWORD, database POSTGRES_DB (default: the user's name), password
#   (scram-sha-256) authentication over TCP, trust over the container's own socket. (The
#   official image also trusts TCP from 127.0.0.1; on the host's network, as in the smoke
#   test, that would trust every local process, so here TCP always asks for the password.)
# - anything else is run as given.
set -Eeuo pipefail

if [[ "${1:0:1}" == "-" ]]; then
    set -- postgres "$@"
fi

if [[ "$1" == postgres && "$(id -u)" == 0 ]]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

initialise() {
    local user=${POSTGRES_USER:-postgres}
    local database=${POSTGRES_DB:-$user}
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set to initialise the database}"
    initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
        --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA"
    printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    # A private server on the container's own socket only, while the database is created.
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -p 5432" start
    if [[ "$database" != postgres ]]; then
        psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -v name="$database" \
            <<<'CREATE DATABASE :"name";'
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "PostgreSQL initialised: database $database, user $user"
}

if [[ "$1" == postgres && ! -s "$PGDATA/PG_VERSION" ]]; then
    initialise
fi
exec "$@"
