#!/usr/bin/env bash
# H200: cold start (process start to first token) of the 1B with and without wgrt's disk cache (Dawn blob
# cache) and the NVIDIA driver's own shader cache. Each line: wall seconds of `wgrt generate -n 1`.
set -u
source .devlibs/env.sh
N=${WGRT:-.devlibs/new/wgrt}
M=/tmp/m; mkdir -p $M
[ -f $M/llama-3.2-1b.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b.gguf >/dev/null
W=/tmp/wgrtcache; D=/tmp/nvcache
t() { local s=$(date +%s%N); "$@" > /tmp/out.txt 2>&1; local e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms | $(grep -o 'load: [0-9.]* s' /tmp/out.txt)"; }
run() { t env WGRT_CACHE_DIR=$1 __GL_SHADER_DISK_CACHE_PATH=$D __GL_SHADER_DISK_CACHE=$2 $N generate -m $M/llama-3.2-1b.gguf -p Hello -n 1; }
rm -rf $W $D; mkdir -p $D
echo "both caches cold (fresh machine):      $(run $W 1)"
echo "both warm:                             $(run $W 1)"
echo "both warm:                             $(run $W 1)"
echo "wgrt cache off, driver cache warm:     $(run off 1)"
echo "wgrt cache off, driver cache warm:     $(run off 1)"
echo "wgrt cache warm, driver cache off:     $(run $W 0)"
echo "both off:                              $(run off 0)"
echo "both off:                              $(run off 0)"
du -sh $W $D 2>/dev/null
tail -3 /tmp/out.txt
