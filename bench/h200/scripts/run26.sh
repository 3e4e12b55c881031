#!/usr/bin/env bash
# H200 run 26 (ninth session), ~8 min: Q4_K / Q5_K chunks of the block GEMV read through a vec4 view of the
# weights (gemv_kq.wgsl binding 9: a block's header and 32 code bytes as 3 vec4 loads instead of 12 scalar
# ones), old vs new binary; the rows-per-invocation rule (RPT 1 / 2 / 4) on the H200; Q4_K_M decode.
# Lines:
#   -- OPS old|new BM_... | GPU us |   wgrt_bench_ops (Q4_K 12, Q6_K 14 control; X 2 int8 staged, 3 int8 pass)
#   -- RPT R BM_... | GPU us |          new binary, WGRT_GEMV_GGML=blocks,R
#   -- DEC old|new FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), binaries alternating
# Needs .devlibs/new/{wgrt,wgrt_old,wgrt_bench_ops,wgrt_bench_ops_old} (make_devlibs.sh). Usage (repo root, H200):
# bash bench/h200/scripts/run26.sh
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
"$N" info 2>&1 | grep -iE "adapter|block-format" | head -3
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
F='BM_GemvGgml/(12|14)/2048/8192/(1|8)/(2|3)/|BM_GemvGgml/14/2048/128256/1/2/|BM_GemvGgmlFused/12/2048/8192/1/1/2/'
echo "== block GEMV, old / new"
for r in 1 2; do for v in old new; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  timeout 150 $b --benchmark_filter="$F" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
echo "== rows of W per invocation (new)"
for R in 1 4; do
  WGRT_GEMV_GGML=blocks,$R timeout 150 .devlibs/new/wgrt_bench_ops --benchmark_filter='BM_GemvGgml/(12|14)/2048/8192/(1|8)/2/' \
    --benchmark_min_time=0.2 2>&1 | grep -E '^BM_' | awk -v R=$R '{print "-- RPT " R " " $1 " | " $2 " " $3 " |"}'
done
echo "== decode tg128, old / new"
for f in l1b-Q4_K_M q05-Q4_K_M; do for d in 128 2048; do for v in old new old new; do b=.devlibs/new/wgrt; [ $v = old ] && b=${b}_old
  echo "-- DEC $v $f d$d $(timeout 60 $b bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done; done
for R in 1 4; do
  echo "-- DEC new RPT $R l1b-Q4_K_M d128 $(WGRT_GEMV_GGML=blocks,$R timeout 60 $N bench -m $M/l1b-Q4_K_M.gguf -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
echo "-- DEC new l1b-Q4_0 d128 $(timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(60)))"
for f in l1b-Q4_K_M l1b-Q4_0; do
  echo "== profile $f (new)"
  timeout 60 "$N" generate -m "$M/$f.gguf" -f /tmp/p_short.txt -n 129 --temp 0 -c 4096 --profile 2>&1 >/dev/null |
    grep -vE '^(model|Once)' | head -24
done
echo "== done"
