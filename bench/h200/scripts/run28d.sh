#!/usr/bin/env bash
# H200 run 28d (eleventh session), ~9 min: the landed decode-attention change (combine_splits issues its loads in
# parallel from 5 splits on; chunks whole multiples of the minimum chunk; GPU split target 256) against main
# 0e8d4c9 (old), then llama.cpp's Vulkan llama-bench (fa 1, median of 5) on the same files in the same lease.
# Lines: -- IDS v f: md5 of 32 greedy ids, -- DEC v f dD | tg128 |, -- LLAMA f then its rows.
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
for f in l1b-Q4_K_M q05-Q4_K_M; do for v in new old; do
  echo "-- IDS $v $f: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done; done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 2048 128; do
  for f in l1b-Q4_K_M l1b-Q4_0; do dec new $f $d; dec old $f $d; done
  for f in q05-Q4_K_M q05-Q4_0; do dec new $f $d; done
done
llama_bench
for f in l1b-Q4_K_M l1b-Q4_0 q05-Q4_K_M q05-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"
