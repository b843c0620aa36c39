#!/bin/bash
# The scale profile's streaming replica (docker-compose.yml): on an empty data folder,
# copy the primary with pg_basebackup -R (which writes standby.signal and the connection
# to stream from), then run PostgreSQL as a hot standby through the image's entrypoint.
# PRIMARY_HOST, PRIMARY_PORT, POSTGRES_USER, POSTGRES_PASSWORD name the primary.
set -Eeuo pipefail
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
    until PGPASSWORD="$POSTGRES_PASSWORD" pg_basebackup -h "$PRIMARY_HOST" \
        -p "${PRIMARY_PORT:-5432}" -U "$POSTGRES_USER" -D "$PGDATA" -R -X stream -c fast; do
        echo "replica: the primary is not ready; again in 1 s"
        rm -rf "${PGDATA:?}"/*
        sleep 1
    done
    echo "replica: copied the primary"
fi
exec docker-entrypoint.sh postgres "$@"
