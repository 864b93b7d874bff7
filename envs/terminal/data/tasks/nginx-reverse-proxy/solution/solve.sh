#!/bin/bash
set -euo pipefail
setsid nohup python3 /app/backend/app.py > /var/log/inventory-backend.log 2>&1 < /dev/null &
rm -f /etc/nginx/sites-enabled/default
cat > /etc/nginx/sites-enabled/inventory.conf <<'CONF'
server {
    listen 127.0.0.1:8081;
    root /app/public;
    index index.html;

    location = /healthz {
        default_type text/plain;
        return 200 "ok\n";
    }

    location /api/ {
        proxy_pass http://127.0.0.1:9000;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Gateway nginx-8081;
    }

    location / {
        try_files $uri $uri/ =404;
    }
}
CONF
nginx -t
nginx
for _ in $(seq 50); do
    if curl -fs -o /dev/null http://127.0.0.1:8081/api/ping && curl -fs -o /dev/null http://127.0.0.1:8081/healthz; then
        exit 0
    fi
    sleep 0.2
done
echo "services did not come up" >&2
exit 1
