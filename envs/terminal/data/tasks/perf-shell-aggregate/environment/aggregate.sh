#!/bin/bash
# aggregate.sh SALES.csv: total units and revenue per region.
# Input: a header line "date,region,sku,units,unit_price" then one sale per line (unit_price has
# exactly two decimals). Output: "region,units,revenue" lines sorted by region, revenue with two
# decimals.
set -euo pipefail
file=${1:?usage: aggregate.sh SALES.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tail -n +2 "$file" | while IFS= read -r line; do
    region=$(echo "$line" | cut -d, -f2)
    units=$(echo "$line" | cut -d, -f4)
    price=$(echo "$line" | cut -d, -f5)
    cents=$(echo "$price" | tr -d .)
    cents=$((10#$cents))
    prev_units=$(cat "$tmp/$region.units" 2>/dev/null || echo 0)
    prev_cents=$(cat "$tmp/$region.cents" 2>/dev/null || echo 0)
    echo $((prev_units + units)) > "$tmp/$region.units"
    echo $((prev_cents + units * cents)) > "$tmp/$region.cents"
done
for f in $(ls "$tmp" | grep '\.units$' | sort); do
    region=${f%.units}
    units=$(cat "$tmp/$f")
    cents=$(cat "$tmp/$region.cents")
    printf '%s,%d,%d.%02d\n' "$region" "$units" $((cents / 100)) $((cents % 100))
done
