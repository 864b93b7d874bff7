#!/bin/bash
set -euo pipefail
cat > /app/rotate.sh <<'SH'
#!/bin/bash
# rotate.sh DIR [KEEP]: rotates every non-empty DIR/*.log into NAME.1.gz ... NAME.KEEP.gz.
set -euo pipefail
dir=${1:?usage: rotate.sh DIR [KEEP]}
keep=${2:-3}
if [ ! -d "$dir" ]; then
    echo "rotate.sh: $dir is not a directory" >&2
    exit 1
fi
shopt -s nullglob
for log in "$dir"/*.log; do
    [ -f "$log" ] && [ -s "$log" ] || continue
    rm -f -- "$log.$keep.gz"
    for ((i = keep - 1; i >= 1; i--)); do
        if [ -e "$log.$i.gz" ]; then
            mv -f -- "$log.$i.gz" "$log.$((i + 1)).gz"
        fi
    done
    mv -- "$log" "$log.1"
    touch -- "$log"
    chmod --reference="$log.1" -- "$log"
    chown --reference="$log.1" -- "$log"
    gzip -n -- "$log.1"
done
SH
chmod +x /app/rotate.sh
