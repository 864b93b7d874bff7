#!/bin/bash
set -euo pipefail
cat > /app/latest.sh <<'SH'
#!/bin/bash
# latest.sh DB: prints, for every sensor in DB's readings table, its most recent reading as
# "sensor_id|ts|value", ordered by sensor_id. The (sensor_id, ts) index turns the correlated
# MAX(ts) lookup into an index seek.
set -euo pipefail
db=${1:?usage: latest.sh DB}
sqlite3 "$db" <<'SQL'
CREATE INDEX IF NOT EXISTS readings_sensor_ts ON readings (sensor_id, ts);
SELECT r.sensor_id, r.ts, r.value
FROM readings r
WHERE r.ts = (SELECT MAX(ts) FROM readings WHERE sensor_id = r.sensor_id)
ORDER BY r.sensor_id;
SQL
SH
chmod +x /app/latest.sh
