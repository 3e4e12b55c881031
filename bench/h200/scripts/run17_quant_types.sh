#!/usr/bin/env bash
# H200: issue 12 K-quant decode vs Q4_0 (wgrt, block-format kernels) + llama.cpp Vulkan on the same files.
set -u
source .devlibs/env.sh
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
export WGRT=.devlibs/new/wgrt HELPER=.devlibs/wgrt_llamacpp_helper LIBDIR=/tmp/lc/linux-x64 OUT=/tmp/q
export TYPES="Q4_0 Q4_K_M Q6_K Q8_0" P=512 N=128 R=3
time bash bench/run_quant_types.sh
for t in Q4_0 Q4_K_M; do
  echo "== llama-bench $t"
  /tmp/llama-bench -m /tmp/q/llama-3.2-1b-$t.gguf -ngl 99 -r 3 -p 512 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m /tmp/q/llama-3.2-1b-$t.gguf -ngl 99 -r 3 -p 0 -n 128 -d 512 -fa 1 2>&1 | grep -E '^\| .*tg'
done
for t in Q4_0 Q4_K_M Q6_K Q8_0; do echo "== $t log"; grep -iE "weight|model:" /tmp/q/llama-3.2-1b-$t.wgrt.txt | head -4; done
