# Sourced by the block-format decode runs (run21_kqdec.sh, run22_kqint8.sh): writes the Llama-3.2-1B-shaped files
# $M/l1b-Q4_0.gguf (`wgrt synth`) and $M/l1b-Q4_K_M.gguf, $M/l1b-Q6_K.gguf (llama.cpp's quantizer, the carried
# helper and CPU libraries, from the F16 synth) where they are not there yet (an earlier script of the batch).
# Needs N (the wgrt binary) and M set.
mkdir -p "$M" /tmp/lc
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
if [ ! -f $M/l1b-Q4_K_M.gguf ] || [ ! -f $M/l1b-Q6_K.gguf ]; then
  [ -d /tmp/lc/linux-x64 ] || tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
  $N synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
  for t in Q4_K_M Q6_K; do
    [ -f $M/l1b-$t.gguf ] || .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-$t.gguf $t \
      >/dev/null 2>&1 || echo "quantize $t failed"
  done
  rm -f $M/l1b-f16.gguf
fi
