#!/usr/bin/env bash
# H200 run 35 (fifteenth session), part A, ~5 min: main (7bb5255's rows rules and later) on the files of run 29f:
# decode tg128 at depths 128 and 2048 (wgrt bench pipelined, -r 3) on the Q4_K_M and lq-Q4_0 files of both shapes,
# after one throwaway bench (the first rows after a machine starts are noisy); prefill pp512 / pp2048 of the 1B
# Q4_0 and Q4_K_M with the prefill chunk at 512 (the default), 1024 and 2048; then where a 2048-token prefill's
# GPU time goes (generate --profile, chunks of 512 and of 2048), and prefill knobs. Part B (run35b.sh) runs
# llama.cpp on the same files.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'adapter|device' | head -3
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do
  quantize ${p##*:}-Q4_K_M ${p%%:*} Q4_K_M --init-std 0.2; quantize ${p##*:}-lq-Q4_0 ${p%%:*} Q4_0 --init-std 0.2
done
timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1
dec() { echo "-- DEC $1 d$2 $(timeout 40 $N bench -m $M/$1.gguf -p $2 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do dec $f $d; done; done
for f in l1b-Q4_0 l1b-Q4_K_M; do for p in 512 2048; do for c in 512 1024 2048; do
  [ $c -gt $p ] && continue
  echo "-- PRE $f chunk $c $(timeout 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 --prefill-chunk $c 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done; done
# Prefill knobs at pp2048 (chunk 512) on the 1B Q4_0: attention rows per invocation, prefill split-KV, the int8
# GEMM's workgroup target.
for v in "" WGRT_SDPA_PREFILL=2 WGRT_SDPA_PREFILL=1 WGRT_SDPA_PREFILL_SPLIT=256,256 WGRT_SDPA_PREFILL_SPLIT=128,512 \
         WGRT_GEMM_MMQ_TARGET=512 WGRT_GEMM_MMQ_TARGET=8192; do
  sweep "PRE-KNOB l1b-Q4_0 pp2048 ${v:-default}" l1b-Q4_0 "-p 2048 -n 4 -r 3" $v
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_2k.txt','w').write(' '.join(random.choice(w) for _ in range(335)))"
for f in l1b-Q4_0 l1b-Q4_K_M; do for c in 512 2048; do
  echo "== PROFILE $f chunk $c"
  timeout 60 $N generate -m $M/$f.gguf -f /tmp/p_2k.txt -n 1 -c 4096 --prefill-chunk $c --profile 2>&1 >/dev/null | grep -vE '^Once' | head -32
done; done
echo "== done"
