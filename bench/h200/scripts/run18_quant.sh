#!/usr/bin/env bash
# H200: issue 12 remainder. (1) K-quant decode vs Q4_0 on llama-3.2-1b, now with Llama 3.2's rope_freqs in the
# file (RoPE scaling applied); (2) the new families gemma-3-1b, gemma-2-2b and phi-3-mini-4k as Q4_0 and Q4_K_M
# (llama.cpp's quantizer from a synthesized F16 file), wgrt bench vs llama.cpp's Vulkan llama-bench on the same
# files. Carry as for run 17 (.devlibs/env.sh, llamacpp-cpu.tar.xz, peers/llama-bench-vulkan.xz, the new wgrt
# and wgrt_llamacpp_helper under .devlibs/new/ and .devlibs/). Disk: ~25 GB under /tmp/q.
set -u
source .devlibs/env.sh
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
export WGRT=.devlibs/new/wgrt HELPER=.devlibs/wgrt_llamacpp_helper LIBDIR=/tmp/lc/linux-x64 OUT=/tmp/q
"$WGRT" info | grep -E "memory|device:"
echo "== llama-3.2-1b"
PRESET=llama-3.2-1b TYPES="Q4_0 Q4_K_M Q6_K Q8_0" P=512 N=128 R=3 bash bench/run_quant_types.sh
for p in gemma-3-1b gemma-2-2b phi-3-mini-4k; do
  echo "== $p"
  PRESET=$p TYPES="Q4_0 Q4_K_M" P=512 N=128 R=3 bash bench/run_quant_types.sh
  for t in Q4_0 Q4_K_M; do
    echo "-- llama-bench $p $t"
    /tmp/llama-bench -m /tmp/q/$p-$t.gguf -ngl 99 -r 3 -p 512 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
    /tmp/llama-bench -m /tmp/q/$p-$t.gguf -ngl 99 -r 3 -p 0 -n 128 -d 512 -fa 1 2>&1 | grep -E '^\| .*tg'
  done
  rm -f /tmp/q/$p-f16.gguf
done
