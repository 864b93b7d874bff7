#!/bin/bash
set -euo pipefail
groupadd -g 2500 webteam
useradd -m -u 2501 -s /bin/bash -G webteam deploy
useradd -m -u 2502 -s /bin/bash -G webteam alice
useradd -m -u 2503 -s /bin/bash auditor
install -d -o root -g webteam -m 2775 /srv/site
install -d -o deploy -g webteam -m 2750 /srv/site/config
install -o deploy -g webteam -m 0640 /app/secrets.env /srv/site/config/secrets.env
install -d -o root -g webteam -m 3770 /srv/site/uploads
# install -d does not change the mode of an existing directory with special bits everywhere; make sure.
chmod 2775 /srv/site
chmod 2750 /srv/site/config
chmod 3770 /srv/site/uploads
