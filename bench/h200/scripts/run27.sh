#!/usr/bin/env bash
# H200 run 27 (tenth session), ~7 min: the two-type q/k/v stack (one gemv_kq dispatch over a Q4_K_M layer's Q4_K
# [Wq; Wk] and Q6_K Wv, WTYPE2) against main 329a1dc (old: [Wq; Wk] and Wv as two dispatches); greedy ids of both
# binaries on the same file (the change must not move a token); decode profile; llama.cpp's Vulkan llama-bench
# (fa 1, median of 5) on the same files in the same run.
# Lines: -- IDS new|old FILE: ids, -- DEC new|old FILE dD | tg128 |, -- PP new|old FILE | pp512 |, then profile and
# llama-bench rows. Needs .devlibs/new/{wgrt,wgrt_old.xz}. Usage: bash bench/h200/scripts/run27.sh
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
"$N" info 2>&1 | grep -iE "block-format|q/k/v"
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
bin() { [ "$1" = old ] && echo .devlibs/new/wgrt_old || echo "$N"; }
for f in l1b-Q4_K_M q05-Q4_K_M; do for v in new old; do
  echo "-- IDS $v $f: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep -iE 'generated|ids' | tail -1)"
done; done
dec() {  # LABEL FILE DEPTH
  echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
}
for d in 128 2048; do for r in 1 2; do for f in l1b-Q4_K_M q05-Q4_K_M; do
  dec new $f $d; dec old $f $d
done; done; done
dec new l1b-Q4_0 128; dec new l1b-Q4_0 2048
for v in new old; do
  echo "-- PP $v l1b-Q4_K_M $(timeout 40 $(bin $v) bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 0 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(60)))"
for v in new old; do
  echo "== profile $v l1b-Q4_K_M"
  timeout 60 $(bin $v) generate -m "$M/l1b-Q4_K_M.gguf" -f /tmp/p_short.txt -n 129 --temp 0 -c 4096 --profile 2>&1 >/dev/null |
    grep -vE '^(model|Once)' | head -16
done
llama_bench
for f in l1b-Q4_K_M l1b-Q4_0 q05-Q4_K_M; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"
