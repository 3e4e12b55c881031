#!/usr/bin/env bash
# H200 run 27c (tenth session), ~6 min: RoPE and the KV-cache write in the q/k/v GEMV's epilogue
# (wgrt.linear_ggml_rope_qkv, gemv_kq_rope.wgsl; block formats of the fused body without biases) on top of run 27's
# two-type stack (mid), and main 329a1dc (old); greedy ids of the three; decode profile; llama.cpp's Vulkan
# llama-bench (fa 1, median of 5) on the same files. The Qwen2.5-0.5B file has q/k/v biases (keeps rope_qkv) and the
# Q4_0 file is q4gsw (keeps it too): controls.
# Lines: -- IDS v f: md5 ids, -- DEC v f dD | tg128 |, -- PP v f | pp512 |. Needs .devlibs/new/{wgrt,wgrt_mid.xz,wgrt_old.xz}.
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; mid) echo .devlibs/new/wgrt_mid;; *) echo "$N";; esac; }
for f in l1b-Q4_K_M q05-Q4_K_M; do for v in new mid old; do
  echo "-- IDS $v $f: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done; done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for r in 1 2; do
  dec new l1b-Q4_K_M $d; dec mid l1b-Q4_K_M $d; dec old l1b-Q4_K_M $d
done; done
for d in 128 2048; do dec new q05-Q4_K_M $d; dec mid q05-Q4_K_M $d; dec new l1b-Q4_0 $d; done
for v in new mid; do
  echo "-- PP $v l1b-Q4_K_M $(timeout 60 $(bin $v) bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(60)))"
echo "== profile new l1b-Q4_K_M"
timeout 60 "$N" generate -m "$M/l1b-Q4_K_M.gguf" -f /tmp/p_short.txt -n 129 --temp 0 -c 4096 --profile 2>&1 >/dev/null |
  grep -vE '^(model|Once)' | head -12
llama_bench
for f in l1b-Q4_K_M l1b-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"
