#!/bin/bash
set -euo pipefail
deploy=$(jq -r 'select(.service == "shop" and (.ts | startswith("2024-11-02"))) | "\(.ts) \(.version)"' /app/logs/deploy.jsonl | sort | tail -1)
dts=${deploy%% *}
version=${deploy##* }
# proxy times as sortable ISO strings: 02/Nov/2024:14:10:03 -> 2024-11-02T14:10:03Z
iso_log=$(awk '{
    split(substr($4, 2), t, /[\/:]/)
    m = (index("JanFebMarAprMayJunJulAugSepOctNovDec", t[2]) + 2) / 3
    printf "%s-%02d-%sT%s:%s:%sZ %s %s %s\n", t[3], m, t[1], t[4], t[5], t[6], $7, $9, $NF
}' /app/logs/nginx/access.log)
after=$(awk -v d="$dts" '$1 >= d' <<< "$iso_log")
rid=$(awk '$2 == "/api/checkout" && $3 == 500 {sub(/^rid=/, "", $4); print $4; exit}' <<< "$after")
errors=$(awk '$3 == 500' <<< "$after" | wc -l)
line=$(grep -F "[rid=$rid]" /app/logs/app/app.log | head -1)
uid=$(sed -E 's/.*user_id=([0-9]+).*/\1/' <<< "$line")
email=$(awk -F, -v id="$uid" '$1 == id {print $2}' /app/data/users.csv)
exc=$(sed -E 's/.*failed: ([A-Za-z_]+)\(.*/\1/' <<< "$line")
printf 'version=%s\nrequest_id=%s\nuser_email=%s\nexception=%s\nerrors_after_deploy=%s\n' \
    "$version" "$rid" "$email" "$exc" "$errors" > /app/incident.txt
