"""A tiny queue worker: appends a heartbeat line to its log every 0.2 s; on SIGTERM it writes
"worker stopping" and exits 0.

Usage: python3 /app/worker.py LOGFILE
"""

import os
import signal
import sys
import time


def main() -> None:
    log = open(sys.argv[1], "a", buffering=1)

    def stop(signum, frame):
        log.write(f"worker stopping pid={os.getpid()}\n")
        log.close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    log.write(f"worker started pid={os.getpid()}\n")
    n = 0
    while True:
        n += 1
        log.write(f"heartbeat {n}\n")
        time.sleep(0.2)


if __name__ == "__main__":
    main()
