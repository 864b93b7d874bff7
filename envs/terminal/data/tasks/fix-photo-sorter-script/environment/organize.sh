#!/bin/bash
# organize.sh SRC DST: moves camera files from SRC (not recursive) into DST/YYYY/MM/ according to
# the date in their name: IMG_YYYYMMDD_HHMMSS.EXT or VID_YYYYMMDD_HHMMSS.EXT, the prefix in upper
# case, EXT jpg or mp4 in any letter case (JPG, Mp4, ...). DST and its folders may already exist.
# Files whose name does not match, or whose month is not 01-12, stay in SRC and are listed, one
# name per line, in DST/unsorted.txt. A file whose destination already exists is not overwritten:
# it stays in SRC and is listed too. Prints "moved N, skipped M" at the end.

SRC=$1
DST=$2
moved=0
skipped=0

mkdir $DST
> $DST/unsorted.txt

ls $SRC | while read f; do
    if [[ $f =~ ^(IMG|VID)_([0-9]{4})([0-9]{2})([0-9]{2})_[0-9]{6}\.(jpg|mp4)$ ]]; then
        year=${f:4:4}
        month=${f:8:2}
        if [ $month -lt 1 -o $month -gt 12 ]; then
            echo $f >> $DST/unsorted.txt
            skipped=$((skipped+1))
            continue
        fi
        mkdir $DST/$year/$month
        if [ -e $DST/$year/$month/$f ]; then
            echo $f >> $DST/unsorted.txt
            skipped=$((skipped+1))
        else
            mv $SRC/$f $DST/$year/$month/
            moved=$((moved+1))
        fi
    else
        echo $f >> $DST/unsorted.txt
        skipped=$((skipped+1))
    fi
done

echo "moved $moved, skipped $skipped"
