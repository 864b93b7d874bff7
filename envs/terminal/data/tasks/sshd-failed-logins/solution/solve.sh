#!/bin/bash
set -euo pipefail
awk '
/sshd\[[0-9]+\]: message repeated [0-9]+ times: \[ Failed password for / {
    n = $0; sub(/.*message repeated /, "", n); sub(/ times.*/, "", n)
    u = $0; sub(/.*Failed password for (invalid user )?/, "", u); sub(/ from .*/, "", u)
    c[u] += n; next
}
/sshd\[[0-9]+\]: Failed password for / {
    u = $0; sub(/.*Failed password for (invalid user )?/, "", u); sub(/ from .*/, "", u)
    c[u]++
}
END { for (u in c) printf "%s\t%d\n", u, c[u] }
' /app/logs/auth.log | sort -t "$(printf '\t')" -k2,2nr -k1,1 > /app/failed_by_user.tsv
