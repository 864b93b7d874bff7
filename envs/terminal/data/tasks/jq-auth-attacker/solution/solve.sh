#!/bin/bash
set -euo pipefail
log=/app/logs/auth.jsonl
ip=$(jq -r 'select(.event == "login" and .result == "failure") | .ip' "$log" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
jq -s --arg ip "$ip" '
  [.[] | select(.ip == $ip and .event == "login")] as $mine
  | ($mine | map(select(.result == "failure"))) as $fails
  | {
      ip: $ip,
      failures: ($fails | length),
      users_targeted: ($fails | map(.user) | unique),
      compromised_user: ([$mine[] | select(.result == "success") | .user] | first),
      first_failure: ($fails | map(.ts) | min)
    }' "$log" > /app/answer.json
