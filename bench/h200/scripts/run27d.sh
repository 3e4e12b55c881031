#!/usr/bin/env bash
# H200 run 27d (tenth session), ~3 min: the final binary (run 27c's fusions plus the review mend, 2a1c2c4) against
# run 27's (mid) on the 1B Q4_K_M file: greedy ids and decode tg128 at d128 / d2048, and the Q4_0 control.
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; mid) echo .devlibs/new/wgrt_mid;; *) echo "$N";; esac; }
for v in new mid old; do
  echo "-- IDS $v l1b-Q4_K_M: $(timeout 60 $(bin $v) generate -m $M/l1b-Q4_K_M.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do dec new l1b-Q4_K_M $d; dec mid l1b-Q4_K_M $d; dec new l1b-Q4_0 $d; done
echo "== done"
