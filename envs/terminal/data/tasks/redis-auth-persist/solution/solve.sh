#!/bin/bash
set -euo pipefail
mkdir -p /var/lib/redis-users
cat > /etc/redis/users.conf <<'CONF'
bind 127.0.0.1
port 6390
protected-mode yes
requirepass harbor-6390-pass
daemonize yes
pidfile /var/lib/redis-users/redis.pid
logfile /var/lib/redis-users/redis.log
dir /var/lib/redis-users
appendonly yes
appendfsync everysec
CONF
redis-server /etc/redis/users.conf
export REDISCLI_AUTH=harbor-6390-pass
for _ in $(seq 50); do
    [ "$(redis-cli -h 127.0.0.1 -p 6390 ping 2>/dev/null)" = PONG ] && break
    sleep 0.2
done
python3 - <<'PY' | redis-cli -h 127.0.0.1 -p 6390 > /dev/null
import csv
with open("/app/data/users.csv", newline="") as f:
    for row in csv.DictReader(f):
        q = lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
        print(f"HSET user:{row['id']} name {q(row['name'])} email {q(row['email'])} plan {q(row['plan'])}")
        print(f"SADD plan:{row['plan']} {row['id']}")
PY
[ "$(redis-cli -h 127.0.0.1 -p 6390 dbsize)" -gt 0 ]
