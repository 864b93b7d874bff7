#!/bin/bash
set -euo pipefail
rm -f /etc/nginx/sites-enabled/default
cat > /etc/nginx/sites-enabled/docs.conf <<'CONF'
server {
    listen 127.0.0.1:8080;
    root /app/site;
    index index.html;
    error_page 404 /404.html;

    location /old/ {
        rewrite ^/old/(.*)$ /docs/$1 permanent;
    }

    location / {
        try_files $uri $uri.html $uri/ =404;
    }
}
CONF
nginx -t
nginx
for _ in $(seq 50); do
    curl -fs -o /dev/null http://127.0.0.1:8080/ && exit 0
    sleep 0.2
done
echo "nginx did not come up" >&2
exit 1
