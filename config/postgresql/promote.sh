#!/bin/sh
# Fail over to the standby in $PGDATA (as the postgres user; PGHOST/PGPORT reach it): promote it, then stop
# waiting for a synchronous standby, which is gone (else every commit on the new primary waits forever).
# Put a new standby behind it (pg_basebackup -R) and set synchronous_standby_names again to regain zero loss.
set -eu
pg_ctl promote -w -t 60 -D "$PGDATA"
psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "ALTER SYSTEM SET synchronous_standby_names = ''" \
    -c "SELECT pg_reload_conf()"
