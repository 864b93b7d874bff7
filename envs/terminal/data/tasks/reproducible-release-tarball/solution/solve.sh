#!/bin/bash
set -euo pipefail
cat > /app/make_release.sh <<'SH'
#!/bin/bash
# make_release.sh OUTDIR: reproducible release tarball of /app/project plus its SHA256SUMS.
set -euo pipefail
out=${1:?usage: make_release.sh OUTDIR}
src=/app/project
version=$(tr -d '[:space:]' < "$src/VERSION")
name=tidewater-$version
mkdir -p "$out"
out=$(cd "$out" && pwd)
tar -C "$src" \
    --exclude='*.tmp' --exclude='.cache' --exclude='__pycache__' --exclude='node_modules' \
    --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime='2024-01-01 00:00:00 UTC' \
    --transform="s,^\.,$name," \
    --format=gnu -cf - . \
    | gzip -n -9 > "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" > SHA256SUMS)
SH
chmod +x /app/make_release.sh
