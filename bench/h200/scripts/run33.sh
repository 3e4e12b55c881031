#!/usr/bin/env bash
# H200 run 33 (thirteenth session), ~8 min: Qwen2's q/k/v bias in wgrt.linear_ggml_rope_qkv's epilogue (new: the
# 0.5B block-format files take the one-dispatch q/k/v + RoPE + cache write) against main without it (old), decode
# tg128 alternating at depths 128 and 2048 on the 0.5B Q4_K_M (the bias route) and the 0.5B lq-Q4_0 / Q4_0 and 1B
# Q4_K_M (unchanged routes, the control); 32 greedy ids of both on the 0.5B Q4_K_M; then llama.cpp's Vulkan
# llama-bench (fa 1, median of 5) on the same files in the same lease.
set -u; source bench/h200/scripts/lib.sh
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
quantize q05-lq-Q4_0 qwen2.5-0.5b Q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
for f in q05-Q4_K_M l1b-Q4_K_M; do for v in new old; do
  echo "-- IDS $f $v: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done; done
echo "-- GRAPH new $($N graph -m $M/q05-Q4_K_M.gguf 2>&1 | grep -c linear_ggml_rope_qkv) rope_qkv ops; old $(.devlibs/new/wgrt_old graph -m $M/q05-Q4_K_M.gguf 2>&1 | grep -c linear_ggml_rope_qkv)"
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do
  for f in q05-Q4_K_M q05-lq-Q4_0; do dec new $f $d; dec old $f $d; dec new $f $d; done
  for f in q05-Q4_0 l1b-Q4_K_M; do dec new $f $d; dec old $f $d; done
done
llama_bench
for f in q05-Q4_K_M q05-lq-Q4_0 q05-Q4_0 l1b-Q4_K_M; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"
