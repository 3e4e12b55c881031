#!/usr/bin/env bash
# H200 run 28 (eleventh session), ~8 min: decode attention at depth. The split-KV decode kernel loads each slot's
# V rows of a tile before the scores (their latency overlaps the K loads), key chunks are whole multiples of
# sdpa_split_min_chunk (no 4-key second tile), and combine_splits issues its loads in parallel (one invocation per
# split's (m, l), four partial loads at a time per group) instead of one memory latency per split; Q6_K's int8 GEMV
# chunk reads its runs as 5 aligned words funnelled by a select (no divergent word_at). New vs main 0e8d4c9 (old).
# Lines: -- ATT v BM_SdpaDecode/ctx/route | GPU us |   (bench_attention; the op's cache write + attention + combine)
#        -- OPS v BM_GemvGgml/14/... | GPU us |          (Q6_K GEMV: the 1B's LM head, an FFN-down shape)
#        -- IDS v f: md5 of 32 greedy ids                 -- DEC v f dD | tg128 |   -- SPLIT rule f dD | tg128 |
# Needs .devlibs/new/{wgrt,wgrt_bench_ops,wgrt_bench_attention} and *_old.xz of each. Usage: bash bench/h200/scripts/run28.sh
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
echo "== decode attention (Hq 32, Hkv 8, D 64), old / new"
for v in old new; do b=.devlibs/new/wgrt_bench_attention; [ $v = old ] && b=${b}_old
  timeout 120 $b --benchmark_filter='BM_SdpaDecode/ctx:(128|640|2048|4096)/route:0' --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- ATT " v " " $1 " | " $2 " " $3 " |"}'
done
echo "== Q6_K GEMV, old / new"
F='BM_GemvGgml/14/2048/8192/1/2/|BM_GemvGgml/14/8192/2048/1/2/|BM_GemvGgml/14/2048/128256/1/2/'
for r in 1 2; do for v in old new; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  timeout 150 $b --benchmark_filter="$F" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
for f in l1b-Q4_K_M q05-Q4_K_M l1b-Q4_0; do for v in new old; do
  echo "-- IDS $v $f: $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done; done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for f in l1b-Q4_K_M l1b-Q4_0; do dec new $f $d; dec old $f $d; done; done
for d in 128 2048; do for f in q05-Q4_K_M q05-Q4_0; do dec new $f $d; dec old $f $d; done; done
echo "== split rule sweep (new), MIN_CONTEXT,MIN_CHUNK,TARGET"
for s in 128,128,128 128,64,256 128,128,256 128,32,256 128,64,512; do for d in 128 2048; do
  echo "-- SPLIT $s l1b-Q4_0 d$d $(WGRT_SDPA_SPLIT=$s timeout 40 $N bench -m $M/l1b-Q4_0.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
echo "== done"
