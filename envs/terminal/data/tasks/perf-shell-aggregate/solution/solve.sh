#!/bin/bash
set -euo pipefail
cat > /app/aggregate.sh <<'SH'
#!/bin/bash
# aggregate.sh SALES.csv: total units and revenue per region.
# Input: a header line "date,region,sku,units,unit_price" then one sale per line (unit_price has
# exactly two decimals). Output: "region,units,revenue" lines sorted by region, revenue with two
# decimals. One awk pass; revenue is summed in integer cents.
set -euo pipefail
file=${1:?usage: aggregate.sh SALES.csv}
LC_ALL=C awk -F, '
NR > 1 {
    split($5, p, ".")
    units[$2] += $4
    cents[$2] += $4 * (p[1] * 100 + p[2])
}
END {
    for (r in units) printf "%s,%d,%d.%02d\n", r, units[r], (cents[r] - cents[r] % 100) / 100, cents[r] % 100
}' "$file" | LC_ALL=C sort -t, -k1,1
SH
chmod +x /app/aggregate.sh
