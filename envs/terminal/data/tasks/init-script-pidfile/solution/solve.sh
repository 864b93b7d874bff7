#!/bin/bash
set -euo pipefail
cat > /app/workerctl <<'SH'
#!/bin/bash
# workerctl start|stop|restart|status: controls /app/worker.py through /run/worker.pid.
PIDFILE=/run/worker.pid
LOG=/var/log/worker.log

# Prints the worker's PID and succeeds if the PID file names a live /app/worker.py.
running_pid() {
    local pid
    [ -f "$PIDFILE" ] || return 1
    pid=$(cat "$PIDFILE" 2>/dev/null)
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q '/app/worker.py' || return 1
    echo "$pid"
}

do_start() {
    if pid=$(running_pid); then
        echo "already running"
        return 0
    fi
    rm -f "$PIDFILE"
    mkdir -p "$(dirname "$LOG")"
    setsid python3 /app/worker.py "$LOG" < /dev/null >> "$LOG" 2>&1 &
    echo $! > "$PIDFILE"
    echo "started (pid $!)"
}

do_stop() {
    local pid
    if ! pid=$(running_pid); then
        rm -f "$PIDFILE"
        echo "not running"
        return 0
    fi
    kill -TERM "$pid"
    for _ in $(seq 100); do
        [ -d "/proc/$pid" ] || break
        # a zombie child of ours counts as gone
        grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
        sleep 0.1
    done
    if [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
        kill -KILL "$pid"
    fi
    rm -f "$PIDFILE"
    echo "stopped"
}

case "${1:-}" in
    start) do_start ;;
    stop) do_stop ;;
    restart) do_stop > /dev/null; do_start ;;
    status)
        if pid=$(running_pid); then
            echo "running (pid $pid)"
        else
            echo "stopped"
            exit 3
        fi
        ;;
    *)
        echo "usage: $0 start|stop|restart|status" >&2
        exit 2
        ;;
esac
SH
chmod +x /app/workerctl
