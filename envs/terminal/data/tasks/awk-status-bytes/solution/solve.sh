#!/bin/bash
set -euo pipefail
log=/app/logs/access.log
awk '
{
    c = substr($9, 1, 1) "xx"
    n[c]++
    if ($10 != "-") b[c] += $10
}
END {
    print "class,requests,bytes"
    split("2xx 3xx 4xx 5xx", order, " ")
    for (i = 1; i <= 4; i++) if (order[i] in n) printf "%s,%d,%d\n", order[i], n[order[i]], b[order[i]]
}' "$log" > /app/status_report.csv
awk '$9 == 404 { p = $7; sub(/\?.*/, "", p); print p }' "$log" | sort | uniq -c | sort -k1,1nr -k2,2 | head -3 \
    | awk '{print $1, $2}' > /app/top404.txt
