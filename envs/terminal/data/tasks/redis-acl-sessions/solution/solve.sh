#!/bin/bash
set -euo pipefail
mkdir -p /var/lib/redis-sessions
cat > /etc/redis/sessions.conf <<'CONF'
bind 127.0.0.1
port 6392
daemonize yes
pidfile /var/lib/redis-sessions/redis.pid
logfile /var/lib/redis-sessions/redis.log
dir /var/lib/redis-sessions
user default off
user admin on >admin-6392 ~* &* +@all
user webapp on >webapp-6392 ~session:* resetchannels -@all +@connection +get +set +del +exists +expire +ttl
CONF
redis-server /etc/redis/sessions.conf
for _ in $(seq 50); do
    redis-cli -h 127.0.0.1 -p 6392 --user admin --pass admin-6392 --no-auth-warning ping 2>/dev/null | grep -q PONG && break
    sleep 0.2
done
jq -r '.sessions[] | "SET session:\(.id) \(.user) EX \(.ttl)"' /app/data/sessions.json \
    | redis-cli -h 127.0.0.1 -p 6392 --user admin --pass admin-6392 --no-auth-warning > /dev/null
