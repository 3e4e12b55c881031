#!/usr/bin/env bash
# H200 run 34d (fourteenth session), ~1 min, in run 34c's lease (its files in $M; the lq-Q4_0 files made here): the
# narrow rule on (WGRT_GEMV_KQ_NARROW_N=4096) for the Q4_K_M files beside llama.cpp's Q4_0 files of the same shapes
# (issue 12's K-quant / Q4_0 ratio from one lease). Ran as one inline command; this file holds it.
set -u; source bench/h200/scripts/lib.sh
quantize l1b-lq-Q4_0 llama-3.2-1b Q4_0 --init-std 0.2; quantize q05-lq-Q4_0 qwen2.5-0.5b Q4_0 --init-std 0.2
for d in 128 2048; do for f in q05-lq-Q4_0 q05-Q4_K_M l1b-lq-Q4_0 l1b-Q4_K_M; do
  echo "-- DEC n4096 $f d$d $(WGRT_GEMV_KQ_NARROW_N=4096 timeout 40 $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
