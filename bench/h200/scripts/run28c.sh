#!/usr/bin/env bash
# H200 run 28c (eleventh session), ~6 min: run 28's decode-attention changes one at a time. Binaries (all but old
# with chunks rounded to whole multiples of sdpa_split_min_chunk): old = main 0e8d4c9; rnd = the rounding alone;
# pf = V rows loaded ahead of the scores; cb = the parallel combine_splits; both = pf + cb; kpf = each K row's loads issued before its dot products; all = both + kpf.
# Lines: -- ATT v split BM_SdpaDecode/ctx/route:0 | GPU us |, -- DEC v split f dD | tg128 |.
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
bin() { case $1 in both) echo $N;; *) echo .devlibs/new/wgrt_$1;; esac; }
att() { case $1 in both) echo .devlibs/new/wgrt_bench_attention;; *) echo .devlibs/new/wgrt_bench_attention_$1;; esac; }
for s in 128,64,128 128,64,256; do for v in old rnd pf cb both kpf all; do
  WGRT_SDPA_SPLIT=$s timeout 100 $(att $v) --benchmark_filter='BM_SdpaDecode/ctx:(128|640|2048|4096)/route:0' --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v -v s=$s '{print "-- ATT " v " " s " " $1 " | " $2 " " $3 " |"}'
done; done
for v in old rnd pf cb both kpf all; do s=128,64,256; [ $v = old ] && s=128,64,128
  echo "-- DEC $v $s l1b-Q4_0 d2048 $(WGRT_SDPA_SPLIT=$s timeout 40 $(bin $v) bench -m $M/l1b-Q4_0.gguf -p 2048 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
for v in old pf cb both kpf all; do
  echo "-- DEC $v default l1b-Q4_0 d128 $(timeout 40 $(bin $v) bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
echo "== done"
