#!/bin/bash
# latest.sh DB: prints, for every sensor in DB's readings table, its most recent reading as
# "sensor_id|ts|value", ordered by sensor_id.
set -euo pipefail
db=${1:?usage: latest.sh DB}
sqlite3 "$db" <<'SQL'
SELECT r.sensor_id, r.ts, r.value
FROM readings r
WHERE r.ts = (SELECT MAX(ts) FROM readings WHERE sensor_id = r.sensor_id)
ORDER BY r.sensor_id;
SQL
