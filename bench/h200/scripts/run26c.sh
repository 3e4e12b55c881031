#!/usr/bin/env bash
# H200 run 26c (ninth session), ~4 min: the GPU rule of 4 rows of W per invocation from 32768 rows (the LM heads;
# ggml_gemv_wide_rpt) on top of run 26's vec4 Q4_K chunks, against the same binary with WGRT_GEMV_GGML=blocks,2
# (RPT 2 everywhere, the rule off) and main (old); llama.cpp's Vulkan llama-bench (fa 1, median of 5) on the same
# files in the same run.
# Lines: -- DEC new|rpt2|old FILE dD | tg128 |, then llama-bench rows.
# Needs .devlibs/new/{wgrt,wgrt_old.xz}. Usage: bash bench/h200/scripts/run26c.sh
set -u; source bench/h200/scripts/lib.sh
for f in .devlibs/new/*.xz; do [ -e "${f%.xz}" ] || { xz -dc "$f" > "${f%.xz}" && chmod +x "${f%.xz}"; }; done
"$N" info 2>&1 | grep -i "block-format"
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
dec() {  # LABEL FILE DEPTH [VAR=VALUE]
  local v=$1 f=$2 d=$3 b=$N; shift 3; [ $v = old ] && b=.devlibs/new/wgrt_old
  echo "-- DEC $v $f d$d $(env "$@" timeout 40 $b bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
}
for d in 128 2048; do for r in 1 2; do
  dec new l1b-Q4_K_M $d; dec rpt2 l1b-Q4_K_M $d WGRT_GEMV_GGML=blocks,2; dec old l1b-Q4_K_M $d
done; done
dec new l1b-Q4_0 128; dec new l1b-Q4_0 2048
llama_bench
for f in l1b-Q4_K_M l1b-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"
