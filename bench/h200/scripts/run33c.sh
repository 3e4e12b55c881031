#!/usr/bin/env bash
# H200 run 33c (thirteenth session), ~1 min, in run 33b's lease (its files in $M): the bias route (new) against main
# before it (old), 0.5B Q4_K_M decode tg128 alternating at depths 128 and 2048, with the 0.5B lq-Q4_0 and 1B Q4_K_M
# as references. Ran as one inline command; this file holds it.
set -u; source bench/h200/scripts/lib.sh
ls $M
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do
  dec new q05-Q4_K_M $d; dec old q05-Q4_K_M $d; dec new q05-Q4_K_M $d; dec old q05-Q4_K_M $d
  dec new q05-lq-Q4_0 $d; dec new l1b-Q4_K_M $d
done
