#!/bin/bash
set -euo pipefail
cat > /app/organize.sh <<'SH'
#!/bin/bash
# organize.sh SRC DST: moves camera files from SRC (not recursive) into DST/YYYY/MM/ according to
# the date in their name: IMG_YYYYMMDD_HHMMSS.EXT or VID_YYYYMMDD_HHMMSS.EXT, the prefix in upper
# case, EXT jpg or mp4 in any letter case (JPG, Mp4, ...). DST and its folders may already exist.
# Files whose name does not match, or whose month is not 01-12, stay in SRC and are listed, one
# name per line, in DST/unsorted.txt. A file whose destination already exists is not overwritten:
# it stays in SRC and is listed too. Prints "moved N, skipped M" at the end.
set -u
export LC_ALL=C

SRC=${1:?usage: organize.sh SRC DST}
DST=${2:?usage: organize.sh SRC DST}
moved=0
skipped=0
unsorted=()

mkdir -p -- "$DST"
shopt -s nullglob
for path in "$SRC"/*; do
    [ -f "$path" ] || continue
    f=${path##*/}
    if [[ $f =~ ^(IMG|VID)_([0-9]{4})([0-9]{2})([0-9]{2})_[0-9]{6}\.([A-Za-z0-9]+)$ ]] \
        && [[ ${BASH_REMATCH[5],,} == jpg || ${BASH_REMATCH[5],,} == mp4 ]] \
        && ((10#${BASH_REMATCH[3]} >= 1 && 10#${BASH_REMATCH[3]} <= 12)); then
        dest=$DST/${BASH_REMATCH[2]}/${BASH_REMATCH[3]}
        if [ -e "$dest/$f" ]; then
            unsorted+=("$f")
            skipped=$((skipped + 1))
        else
            mkdir -p -- "$dest"
            mv -- "$path" "$dest/"
            moved=$((moved + 1))
        fi
    else
        unsorted+=("$f")
        skipped=$((skipped + 1))
    fi
done

if ((${#unsorted[@]})); then
    printf '%s\n' "${unsorted[@]}" | sort > "$DST/unsorted.txt"
else
    : > "$DST/unsorted.txt"
fi
echo "moved $moved, skipped $skipped"
SH
chmod +x /app/organize.sh
