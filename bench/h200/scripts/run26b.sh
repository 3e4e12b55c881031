#!/usr/bin/env bash
# H200 run 26b (ninth session), ~8 min: the int8 K-quant chunks of the block GEMV with their weight words loaded
# ahead (gemv_kq_i8.wgsl kq_load: the first chunk's before the fused norm and the staging of x, each next one's
# before the current one's products; Q6_K's 2-byte aligned runs as 5 aligned words funnelled by a select), against
# run 26's vec4 reads alone (v4) and main (old).
# Lines:
#   -- OPS old|pf BM_... | GPU us |   wgrt_bench_ops (12 Q4_K, 14 Q6_K; X 2 int8 staged, 3 int8 pass)
#   -- DEC old|v4|pf FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), binaries alternating
# Needs .devlibs/new/{wgrt,wgrt_v4,wgrt_old,wgrt_bench_ops,wgrt_bench_ops_old}. Usage: bash bench/h200/scripts/run26b.sh
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
export TMPDIR=${TMPDIR:-/tmp}
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
F='BM_GemvGgml/(12|14)/2048/8192/(1|8)/(2|3)/|BM_GemvGgml/(12|14)/8192/2048/1/2/|BM_GemvGgml/14/2048/128256/1/2/|BM_GemvGgmlFused/(12|14)/2048/8192/1/1/2/'
echo "== block GEMV, old / pf"
for r in 1 2; do for v in old pf; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  timeout 150 $b --benchmark_filter="$F" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
echo "== LM head (Q6_K 2048 x 128256, int8 x staged), fresh process each, RPT 2 / 4"
for r in 1 2 3; do for R in 2 4; do for v in old pf; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  WGRT_GEMV_GGML=blocks,$R timeout 60 $b --benchmark_filter='BM_GemvGgml/14/2048/128256/1/2/' --benchmark_min_time=0.3 2>&1 |
    grep -E '^BM_' | awk -v v=$v -v R=$R '{print "-- HEAD " v " RPT " R " " $1 " | " $2 " " $3 " |"}'
done; done; done
echo "== decode tg128, old / v4 / pf"
for f in l1b-Q4_K_M q05-Q4_K_M; do for d in 128 2048; do for v in old v4 pf old v4 pf; do
  b=.devlibs/new/wgrt; [ $v = old ] && b=${b}_old; [ $v = v4 ] && b=${b}_v4
  echo "-- DEC $v $f d$d $(timeout 60 $b bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done; done
for d in 128 2048; do
  echo "-- DEC pf l1b-Q4_0 d$d $(timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(60)))"
echo "== profile l1b-Q4_K_M (pf)"
timeout 60 "$N" generate -m "$M/l1b-Q4_K_M.gguf" -f /tmp/p_short.txt -n 129 --temp 0 -c 4096 --profile 2>&1 >/dev/null |
  grep -vE '^(model|Once)' | head -12
echo "== done"
