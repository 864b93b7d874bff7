#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import csv
import decimal
import json


def cents(text):
    return int(decimal.Decimal(text.replace(",", "").strip()) * 100)


def fmt(c):
    return ("-" if c < 0 else "") + f"{abs(c) // 100}.{abs(c) % 100:02d}"


with open("/app/data/bank.csv", newline="") as f:
    bank = {r["Reference"].strip().upper(): cents(r["Amount"]) for r in csv.DictReader(f)}
with open("/app/data/ledger.csv", newline="") as f:
    ledger = {r["ref"].strip().upper(): cents(r["amount"]) for r in csv.DictReader(f)}
out = {
    "missing_in_ledger": sorted(set(bank) - set(ledger)),
    "missing_in_bank": sorted(set(ledger) - set(bank)),
    "amount_mismatch": [
        {"ref": r, "bank": fmt(bank[r]), "ledger": fmt(ledger[r])}
        for r in sorted(set(bank) & set(ledger))
        if bank[r] != ledger[r]
    ],
}
with open("/app/reconcile.json", "w") as f:
    json.dump(out, f, indent=2)
PY
