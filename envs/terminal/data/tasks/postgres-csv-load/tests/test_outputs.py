"""Checks the warehouse database on 127.0.0.1:5432 as the inventory role."""

import csv
import decimal
import os
import subprocess


def sql(query: str) -> list[list[str]]:
    env = dict(os.environ, PGPASSWORD="inv-pass-2024", PGCONNECT_TIMEOUT="5")
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "inventory", "-d", "warehouse", "-At", "-F", "\t",
         "-v", "ON_ERROR_STOP=1", "-c", query],
        capture_output=True, text=True, timeout=15, env=env,
    )
    assert out.returncode == 0, out.stderr
    return [line.split("\t") for line in out.stdout.splitlines()]


def rows() -> list[dict[str, str]]:
    with open("/tests/items.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_role_not_superuser():
    assert sql("select rolsuper from pg_roles where rolname = 'inventory'") == [["f"]]


def test_ownership():
    assert sql("select pg_get_userbyid(datdba) from pg_database where datname = 'warehouse'") == [["inventory"]]
    assert sql("select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'stock'") == [["inventory"]]
    assert sql("select tableowner from pg_tables where schemaname = 'stock' and tablename = 'items'") == [
        ["inventory"]
    ]


def test_columns():
    got = sql(
        "select column_name, data_type, is_nullable from information_schema.columns "
        "where table_schema = 'stock' and table_name = 'items' order by ordinal_position"
    )
    assert got == [
        ["sku", "text", "NO"],
        ["name", "text", "NO"],
        ["qty", "integer", "NO"],
        ["price", "numeric", "YES"],
    ]
    assert sql("select count(*) from pg_index where indrelid = 'stock.items'::regclass and indisprimary") == [["1"]]


def test_row_count_and_totals():
    data = rows()
    qty = sum(int(r["qty"]) for r in data)
    value = sum(int(r["qty"]) * decimal.Decimal(r["price"]) for r in data if r["price"])
    nulls = sum(1 for r in data if not r["price"])
    got = sql("select count(*), sum(qty), sum(qty * price), count(*) filter (where price is null) from stock.items")
    assert got == [[str(len(data)), str(qty), f"{value:.2f}", str(nulls)]]


def test_names_with_commas_and_quotes():
    for r in rows():
        if '"' in r["name"]:
            assert sql(f"select name from stock.items where sku = '{r['sku']}'") == [[r["name"]]]
