#!/bin/bash
set -euo pipefail
pg_ctlcluster 15 main start
su postgres -c "psql -v ON_ERROR_STOP=1 -q" <<'SQL'
CREATE ROLE reporter LOGIN PASSWORD 'reporter-pw';
CREATE DATABASE shop;
SQL
su postgres -c "psql -v ON_ERROR_STOP=1 -q -d shop -f /app/db/schema.sql -f /app/db/seed.sql"
su postgres -c "psql -v ON_ERROR_STOP=1 -q -d shop" <<'SQL'
GRANT SELECT ON customers, orders, order_items TO reporter;
SQL
cat > /app/report.sql <<'SQL'
-- Revenue per country in 2024 (paid orders only); countries without revenue show 0.00.
SELECT c.country,
       COALESCE(SUM(oi.qty * oi.unit_price), 0)::numeric(14,2) AS revenue
FROM customers c
LEFT JOIN orders o
       ON o.customer_id = c.id
      AND o.status = 'paid'
      AND o.placed_at >= '2024-01-01'
      AND o.placed_at < '2025-01-01'
LEFT JOIN order_items oi ON oi.order_id = o.id
GROUP BY c.country
ORDER BY revenue DESC, c.country;
SQL
