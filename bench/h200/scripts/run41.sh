#!/usr/bin/env bash
# Run 41 (twenty-first session): the block GEMV's new shape overrides (TK, RPT up to 16, STREAM; CPU adapters only
# by policy) must leave GPUs where they were. Old (.devlibs/new/wgrt_old, main 4f20898) against new
# (.devlibs/new/wgrt) on the four peer files: decode tg128 pipelined at depth 128, two alternating passes; greedy
# text identity on the 1B Q4_K_M and Q4_0 files; then llama.cpp fa 1 at depth 128 on the same files for the ratio.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
peer_files >/dev/null
O=.devlibs/new/wgrt_old
timeout 40 $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 64 -r 1 --tg-mode pipelined >/dev/null 2>&1
for pass in 1 2; do
  for f in $FILES; do for b in $O $N; do
    echo "-- DEC $pass $f $(basename $b) $(timeout 40 $b bench -m $M/$f.gguf -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
  done; done
done
for f in l1b-Q4_K_M l1b-Q4_0; do
  a=$(timeout 60 $O generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | head -c 2000 | md5sum)
  b=$(timeout 60 $N generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | head -c 2000 | md5sum)
  echo "-- GREEDY $f old $a new $b $([ "$a" = "$b" ] && echo same || echo DIFFERENT)"
done
for f in $FILES; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128 -fa 1; done
echo "== done"
