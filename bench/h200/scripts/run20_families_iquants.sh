#!/usr/bin/env bash
# H200: issue 12 grid i-quants (IQ3_S, IQ3_XXS, IQ2_S, IQ2_XXS, IQ1_M; ggml_decode_iq.wgsl) decode/prefill vs
# Q4_0 / Q4_K_M / IQ4_XS on the same Llama-3.2-1B-shape weights (files from llama.cpp's own quantizer, an
# all-ones importance matrix for the types that need one), and llama.cpp Vulkan on the same files.
# The i-quant decode in this branch is a first, correct version (one grid entry per run of 8 from WGSL const
# arrays); this measures where it stands, not a tuned kernel.
set -u
source .devlibs/env.sh
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
export WGRT=.devlibs/new/wgrt HELPER=.devlibs/wgrt_llamacpp_helper LIBDIR=/tmp/lc/linux-x64 OUT=/tmp/iq
export WGRT_LLAMACPP_THREADS=16
export TYPES="Q4_0 Q4_K_M IQ4_XS IQ3_S IQ3_XXS IQ2_S IQ2_XXS IQ1_M" P=512 N=128 R=3
time bash bench/run_quant_types.sh
for t in IQ3_S IQ2_XXS IQ1_M; do
  echo "== llama-bench $t"
  /tmp/llama-bench -m /tmp/iq/llama-3.2-1b-$t.gguf -ngl 99 -r 3 -p 512 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m /tmp/iq/llama-3.2-1b-$t.gguf -ngl 99 -r 3 -p 0 -n 128 -d 512 -fa 1 2>&1 | grep -E '^\| .*tg'
done
for t in IQ3_S IQ2_XXS IQ1_M; do echo "== $t log"; grep -iE "weight|model:" /tmp/iq/llama-3.2-1b-$t.wgrt.txt | head -4; done
