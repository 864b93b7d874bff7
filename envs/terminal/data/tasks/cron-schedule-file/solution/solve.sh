#!/bin/bash
set -euo pipefail
cat > /app/crontab <<'CRON'
MAILTO=""
SHELL=/bin/bash

# m     h          dom    mon          dow   command
30      2          *      *            *     /opt/jobs/backup.sh
*/15    8-18       *      *            1-5   /opt/jobs/sync.sh
0       6          1      *            *     /opt/jobs/report.sh
45      23         *      *            0     /opt/jobs/cleanup.sh
*/5     *          *      *            *     /opt/jobs/ping.sh
0       0          1      jan,apr,jul,oct *  /opt/jobs/quarterly.sh
30      9          15,28  *            *     /opt/jobs/payroll.sh
10      22,23,0,1  *      *            mon-fri /opt/jobs/night-batch.sh
CRON
