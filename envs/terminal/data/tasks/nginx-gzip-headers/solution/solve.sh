#!/bin/bash
set -euo pipefail
rm -f /etc/nginx/sites-enabled/default
cat > /etc/nginx/sites-enabled/fleet.conf <<'CONF'
server {
    listen 127.0.0.1:8082;
    root /app/www;
    index index.html;

    gzip on;
    gzip_min_length 256;
    gzip_types text/css application/javascript text/javascript application/json text/plain;

    add_header X-Served-By fleet-web always;

    location /assets/ {
        add_header X-Served-By fleet-web always;
        add_header Cache-Control "public, max-age=86400" always;
    }
}
CONF
# gzip is switched on in nginx.conf's http block too in Debian's default; the server block settles it.
nginx -t
nginx
for _ in $(seq 50); do
    curl -fs -o /dev/null http://127.0.0.1:8082/ && exit 0
    sleep 0.2
done
echo "nginx did not come up" >&2
exit 1
