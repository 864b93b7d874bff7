#!/bin/bash
set -euo pipefail
mkdir -p /var/lib/redis-cache
cat > /etc/redis/cache.conf <<'CONF'
bind 127.0.0.1
port 6391
daemonize yes
pidfile /var/lib/redis-cache/redis.pid
logfile /var/lib/redis-cache/redis.log
dir /var/lib/redis-cache
maxmemory 100mb
maxmemory-policy allkeys-lru
save ""
appendonly no
CONF
redis-server /etc/redis/cache.conf
for _ in $(seq 50); do
    [ "$(redis-cli -h 127.0.0.1 -p 6391 ping 2>/dev/null)" = PONG ] && break
    sleep 0.2
done
jq -r '"ZINCRBY leaderboard \(.points) \(.player)\nHINCRBY games \(.player) 1"' /app/data/matches.jsonl \
    | redis-cli -h 127.0.0.1 -p 6391 > /dev/null
[ "$(redis-cli -h 127.0.0.1 -p 6391 zcard leaderboard)" -gt 0 ]
