#!/usr/bin/env bash
# H200 run 27b (tenth session), ~5 min, after run 27 on the same binaries: greedy ids of new and old on the same
# files (the two-type stack must not move a token), prefill pp512 / pp2048 new vs old, and a sweep of the decode
# split-KV rule at depth 2048 (WGRT_SDPA_SPLIT=min_context,min_chunk,target_workgroups; GPU default 128,64,128);
# llama.cpp prefill with matrix cores off (fa 1) on the Q4_K_M file.
# Lines: -- IDS v f: ids, -- PP v f pP | pp |, -- SPLIT s f d2048 | tg128 |. Usage: bash bench/h200/scripts/run27b.sh
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
bin() { [ "$1" = old ] && echo .devlibs/new/wgrt_old || echo "$N"; }
for f in l1b-Q4_K_M q05-Q4_K_M; do for v in new old; do
  echo "-- IDS $v $f: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12) $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | cut -c1-80)"
done; done
for p in 512 2048; do for r in 1 2; do for v in new old; do
  echo "-- PP $v l1b-Q4_K_M p$p $(timeout 60 $(bin $v) bench -m $M/l1b-Q4_K_M.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done; done
for f in l1b-Q4_0 l1b-Q4_K_M; do for s in 128,64,128 128,64,256 128,32,256 128,32,512 128,64,64; do
  echo "-- SPLIT $s $f d2048 $(WGRT_SDPA_SPLIT=$s timeout 40 $N bench -m $M/$f.gguf -p 2048 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
llama_bench
echo "-- LLAMA pp l1b-Q4_K_M coopmat off"
GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/l1b-Q4_K_M.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
echo "== done"
