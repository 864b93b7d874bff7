#!/bin/bash
set -euo pipefail
sqlite3 -header -csv /app/events.db > /app/sessions.csv <<'SQL'
WITH ordered AS (
    SELECT user_id, kind, at,
           LEAD(kind) OVER w AS next_kind,
           LEAD(at) OVER w AS next_at
    FROM events
    WHERE kind IN ('login', 'logout')
    WINDOW w AS (PARTITION BY user_id ORDER BY at, id)
),
sessions AS (
    SELECT user_id, CAST(strftime('%s', next_at) AS INTEGER) - CAST(strftime('%s', at) AS INTEGER) AS secs
    FROM ordered
    WHERE kind = 'login' AND next_kind = 'logout'
)
SELECT u.handle AS handle, COUNT(*) AS sessions, SUM(secs) AS total_seconds, MAX(secs) AS longest_seconds
FROM sessions JOIN users u ON u.id = sessions.user_id
GROUP BY u.id
ORDER BY total_seconds DESC, handle;
SQL
