#!/bin/bash
set -euo pipefail
pg_ctlcluster 15 main start
su postgres -c "psql -v ON_ERROR_STOP=1 -q" <<'SQL'
CREATE ROLE inventory LOGIN PASSWORD 'inv-pass-2024';
CREATE DATABASE warehouse OWNER inventory;
SQL
export PGPASSWORD=inv-pass-2024
psql -h 127.0.0.1 -U inventory -d warehouse -v ON_ERROR_STOP=1 -q <<'SQL'
CREATE SCHEMA stock;
CREATE TABLE stock.items (
    sku text PRIMARY KEY,
    name text NOT NULL,
    qty integer NOT NULL,
    price numeric(10,2)
);
\copy stock.items FROM '/app/items.csv' WITH (FORMAT csv, HEADER true)
SQL
