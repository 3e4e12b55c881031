#!/usr/bin/env bash
# Extracts llama.cpp's tokenizer conformance files (models/ggml-vocab-*.gguf with .inp/.out test vectors) from the
# llama.cpp source that npm node-llama-cpp@3.21.1 carries as llama/gitRelease.bundle, into OUTDIR.
# Third-party files: never committed; the test suite runs this as a CTest fixture (tests/CMakeLists.txt).
# The bundle: bench/node_modules/node-llama-cpp (after npm ci in bench/) or third_party/llama.cpp (setup.sh).
# Usage: scripts/vocab_vectors.sh OUTDIR     (idempotent: does nothing when OUTDIR already holds this commit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: vocab_vectors.sh OUTDIR}
commit=80fb11ac73e66d89eae2c6a91d8a77428fa733ed
if [ -f "$out/.commit" ] && [ "$(cat "$out/.commit")" = "$commit" ]; then exit 0; fi
bundle=
for b in "$root/bench/node_modules/node-llama-cpp/llama/gitRelease.bundle" \
         "$root/third_party/llama.cpp/gitRelease.bundle"; do
  if [ -f "$b" ]; then bundle=$b; break; fi
done
[ -n "$bundle" ] || { echo "vocab_vectors: llama.cpp source bundle not found: run scripts/setup.sh" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --bare "$bundle" "$tmp/src.git"
got=$(git --git-dir="$tmp/src.git" rev-parse HEAD)
[ "$got" = "$commit" ] || { echo "vocab_vectors: bundle is llama.cpp $got, expected $commit" >&2; exit 1; }
mkdir -p "$out"
git --git-dir="$tmp/src.git" archive HEAD -- ':(glob)models/ggml-vocab-*' | tar -x -C "$tmp"
mv "$tmp"/models/ggml-vocab-* "$out"/
echo "$commit" > "$out/.commit"
echo "vocab_vectors: $(ls "$out"/*.gguf | wc -l) vocab files from llama.cpp $commit in $out"
