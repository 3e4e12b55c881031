#!/usr/bin/env bash
# Builds llama.cpp's llama-server, the serving peer of `wgrt serve` (issue 15), from the same llama.cpp source as
# ../shared/peers' llama-bench (node-llama-cpp 3.21.1's llama/gitRelease.bundle, commit 80fb11a), linked against
# the prebuilt shared libraries node-llama-cpp ships for that commit, so only tools/server and tools/mtmd are
# compiled (~10 min on 2 cores, no shader build). Two binaries: Vulkan (bench/node_modules/@node-llama-cpp/
# linux-x64-vulkan) and CPU-only (linux-x64), each in its own folder beside copies of its libraries (rpath
# $ORIGIN). Optionally packs the Vulkan one (stripped, xz) for the H200.
#
# Usage: bench/peers/build_llama_server.sh [--pack OUT.tar.xz]
#   env: BUNDLE=third_party/llama.cpp/gitRelease.bundle  OUT=build-peers/llama-server  JOBS=2
# Output: $OUT/vulkan/llama-server, $OUT/cpu/llama-server (+ their .so files). Nothing is committed.
# The H200 package (--pack): llama-server-peer/ with the Vulkan binary, its libraries and the CPU variants,
# stripped, about 10 MiB as .tar.xz; bench/h200/scripts/run20_serve_peer.sh expects it at
# .devlibs/peers/llama-server-peer.tar.xz. Needs only libvulkan.so.1 and the C++ runtime on the host.
# Run: GGML_VK_VISIBLE_DEVICES=0 $OUT/vulkan/llama-server -m F.gguf -ngl 99 --port P   (lavapipe is device 0 here)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUNDLE=${BUNDLE:-third_party/llama.cpp/gitRelease.bundle}
OUT=${OUT:-build-peers/llama-server}
JOBS=${JOBS:-2}
# ccache when present (the shared cache makes a rebuild take seconds); CMAKE_CXX_COMPILER_LAUNCHER overrides.
LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER-$(command -v ccache || true)}
COMMIT=80fb11ac73e66d89eae2c6a91d8a77428fa733ed
NLC=bench/node_modules/@node-llama-cpp
PACK=""
[ "${1:-}" = "--pack" ] && PACK=${2:?--pack needs a file name}
[ -f "$BUNDLE" ] || { echo "build_llama_server: no llama.cpp bundle at $BUNDLE (npm pack node-llama-cpp@3.21.1; it is llama/gitRelease.bundle)" >&2; exit 1; }
for d in "$NLC/linux-x64-vulkan/bins/linux-x64-vulkan" "$NLC/linux-x64/bins/linux-x64"; do
  [ -f "$d/libllama-common.so" ] || { echo "build_llama_server: no prebuilt libraries in $d (cd bench && npm ci)" >&2; exit 1; }
done
SRC=third_party/llama.cpp/src
if [ ! -d "$SRC/.git" ]; then git clone -q "$BUNDLE" "$SRC"; fi
[ "$(git -C "$SRC" rev-parse HEAD)" = "$COMMIT" ] || { echo "build_llama_server: $SRC is not at $COMMIT" >&2; exit 1; }

mkdir -p "$OUT/ui"
# The web UI is not needed (the benchmark drives the API): provision an empty asset set with llama.cpp's own script.
if [ ! -f "$OUT/ui/ui.cpp" ]; then
  g++ -O1 -std=c++17 -o "$OUT/ui/llama-ui-embed" "$SRC/tools/ui/embed.cpp"
  cmake -DUI_SOURCE_DIR="$ROOT/$OUT/ui/none" -DUI_BINARY_DIR="$ROOT/$OUT/ui" -DLLAMA_SOURCE_DIR="$ROOT/$SRC" \
        -DHF_ENABLED=OFF -DBUILD_UI=OFF -DLLAMA_UI_EMBED="$ROOT/$OUT/ui/llama-ui-embed" -DLLAMA_UI_GZIP=OFF \
        -P "$SRC/scripts/ui-assets.cmake" 2>&1 | grep -v '^$' >&2 || true
  [ -f "$OUT/ui/ui.cpp" ] || { echo "build_llama_server: UI stub generation failed" >&2; exit 1; }
fi

build_one() {  # $1 = vulkan|cpu, $2 = prebuilt folder, $3 = library tag
  local b="$OUT/obj-$1" dst="$OUT/$1"
  cmake -S bench/peers/llama_server -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_COMPILER_LAUNCHER="$LAUNCHER" -DCMAKE_C_COMPILER_LAUNCHER="$LAUNCHER" \
        -DLLAMA_SRC="$ROOT/$SRC" -DPREBUILT="$ROOT/$2" -DLIB_TAG="$3" -DUI_DIR="$ROOT/$OUT/ui" >/dev/null
  nice ninja -C "$b" -j "$JOBS" llama-server
  mkdir -p "$dst"
  cp "$b/llama-server" "$dst/"
  cp "$2"/*.so "$dst/"
  rm -f "$dst/llama-addon.node"
}
build_one vulkan "$NLC/linux-x64-vulkan/bins/linux-x64-vulkan" vulkan.v0.4.0
build_one cpu "$NLC/linux-x64/bins/linux-x64" v0.4.0
echo "build_llama_server: $OUT/vulkan/llama-server and $OUT/cpu/llama-server" >&2

if [ -n "$PACK" ]; then
  t=$(mktemp -d); mkdir -p "$t/llama-server-peer"
  cp "$OUT/vulkan/"* "$t/llama-server-peer/"
  strip --strip-unneeded "$t/llama-server-peer/"* 2>/dev/null || true
  cat > "$t/llama-server-peer/README.txt" <<TXT
llama.cpp llama-server, commit $COMMIT (node-llama-cpp 3.21.1 source), Vulkan build linked against node-llama-cpp's
prebuilt libraries (MIT). Built by wgrt's bench/peers/build_llama_server.sh. Needs libvulkan.so.1 on the host.
Run: ./llama-server -m F.gguf -ngl 99 --parallel N -c CTX --port P
TXT
  tar -C "$t" -cf - llama-server-peer | xz -9e -T"$JOBS" > "$PACK"
  rm -rf "$t"
  echo "build_llama_server: packed $(du -h "$PACK" | cut -f1) into $PACK" >&2
fi
