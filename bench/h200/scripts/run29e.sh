#!/usr/bin/env bash
# H200 run 29e (twelfth session), ~5 min: combine_splits' workgroup merge with its accumulator loads issued
# before the (m, l) reduction (one memory latency, new) against the f16-cache build without it (old), decode
# tg128 alternating, 1B and 0.5B files at depths 2048 and 128; 32 greedy ids of both on the 1B Q4_K_M.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
for v in new old; do
  echo "-- IDS $v: $(timeout 60 $(bin $v) generate -m $M/l1b-Q4_K_M.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 2048 128; do for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0; do dec new $f $d; dec old $f $d; dec new $f $d; done; done
echo "== done"
