#!/bin/bash
set -euo pipefail
pg_ctlcluster 15 main start
su postgres -c "psql -v ON_ERROR_STOP=1 -q" <<'SQL'
CREATE ROLE dash LOGIN PASSWORD 'dash-pw';
CREATE DATABASE metrics;
SQL
su postgres -c "psql -v ON_ERROR_STOP=1 -q -d metrics -f /app/schema.sql"
su postgres -c "psql -v ON_ERROR_STOP=1 -q -d metrics" <<'SQL'
\copy samples FROM '/app/samples.csv' WITH (FORMAT csv, HEADER true)
CREATE INDEX samples_host_ts ON samples (host, ts);
ANALYZE samples;
GRANT SELECT ON samples TO dash;
SQL
