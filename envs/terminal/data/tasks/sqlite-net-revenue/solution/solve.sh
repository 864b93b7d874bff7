#!/bin/bash
set -euo pipefail
sqlite3 -header -csv /app/shop.db > /app/top_customers.csv <<'SQL'
WITH counted AS (
    SELECT o.id, o.customer_id,
           o.total_cents - COALESCE((SELECT SUM(r.amount_cents) FROM refunds r WHERE r.order_id = o.id), 0) AS net
    FROM orders o
    WHERE o.status = 'complete' AND o.created_at >= '2023-07-01' AND o.created_at < '2023-10-01'
)
SELECT c.name AS name,
       printf('%d.%02d', SUM(counted.net) / 100, SUM(counted.net) % 100) AS net_revenue,
       COUNT(*) AS orders
FROM counted JOIN customers c ON c.id = counted.customer_id
GROUP BY c.id
ORDER BY SUM(counted.net) DESC, c.name
LIMIT 5;
SQL
