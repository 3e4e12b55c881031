# Sourced by the serving runs (run19_serve.sh, run20_serve_peer.sh): writes the Llama-3.2-1B-shaped files into
# $M and sets files=(...): Q4_0 from `wgrt synth` (std 0.2, so greedy text varies) and, where the carried
# quantizer helper and llama.cpp CPU libraries are there, Q4_K_M by llama.cpp's quantizer from the F16 synth.
# Needs WGRT and M set.
"$WGRT" synth --preset llama-3.2-1b --type q4_0 --init-std 0.2 -o "$M/llama-3.2-1b-Q4_0.gguf" > /dev/null
files=("$M/llama-3.2-1b-Q4_0.gguf")
if [ -x .devlibs/wgrt_llamacpp_helper ] && [ -f .devlibs/llamacpp-cpu.tar.xz ]; then
  mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
  "$WGRT" synth --preset llama-3.2-1b --type f16 --init-std 0.2 -o "$M/llama-3.2-1b-f16.gguf" > /dev/null
  .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 "$M/llama-3.2-1b-f16.gguf" \
    "$M/llama-3.2-1b-Q4_K_M.gguf" Q4_K_M > /dev/null && files+=("$M/llama-3.2-1b-Q4_K_M.gguf")
  rm -f "$M/llama-3.2-1b-f16.gguf"
fi
