#!/bin/bash
set -euo pipefail
log=/app/logs/access.log
hour=$(awk '{
    split(substr($4, 2), t, /[\/:]/)
    m = (index("JanFebMarAprMayJunJulAugSepOctNovDec", t[2]) + 2) / 3
    printf "%s-%02d-%sT%s\n", t[3], m, t[1], t[4]
}' "$log" | sort | uniq -c | sort -k1,1nr | awk 'NR == 1 {print $2}')
awk -v want="$hour" '
{
    split(substr($4, 2), t, /[\/:]/)
    m = (index("JanFebMarAprMayJunJulAugSepOctNovDec", t[2]) + 2) / 3
    h = sprintf("%s-%02d-%sT%s", t[3], m, t[1], t[4])
    if (h != want) next
    n++
    ips[$1] = 1
    p = $7; sub(/\?.*/, "", p); paths[p]++
}
END {
    for (i in ips) u++
    best = ""; for (p in paths) if (paths[p] > paths[best] || best == "") best = p
    printf "busiest_hour=%s\nrequests=%d\nunique_ips=%d\ntop_path=%s\n", want, n, u, best
}' "$log" > /app/report.txt
