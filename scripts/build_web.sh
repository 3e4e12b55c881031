#!/usr/bin/env bash
# Builds the browser build of wgrt (docs/BROWSER.md) into build-web/ with Debian's Emscripten:
#   1. PCRE2 for wasm from Debian's pcre2 source (third_party/pcre2-src, fetched by scripts/setup.sh), no JIT;
#   2. the Unicode tables (the native generator's output, build/generated/unicode_tables.inc, else built here);
#   3. web/CMakeLists.txt with emcmake: build-web/wgrt_wasm.{js,wasm};
#   4. build-web/site/: the page (web/index.html), the API module (web/wgrt.js) and the wasm, ready to serve.
# Env: WGRT_WEB_BUILD (default build-web), CCACHE_DIR etc. as for the native build (ccache is used when present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${WGRT_WEB_BUILD:-$root/build-web}
say() { printf '[build_web] %s\n' "$*"; }
command -v emcc >/dev/null || { echo "[build_web] emcc missing: run scripts/setup.sh (Debian emscripten)" >&2; exit 1; }
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten tools import acorn from there
mkdir -p "$out"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# 1. PCRE2 (byte-level BPE pre-tokenizer regexes).
pcre_src=$root/third_party/pcre2-src
[ -f "$pcre_src/CMakeLists.txt" ] || { echo "[build_web] $pcre_src missing: run scripts/setup.sh" >&2; exit 1; }
if [ ! -f "$out/pcre2/lib/libpcre2-8.a" ]; then
  say "building PCRE2 for wasm"
  emcmake cmake -S "$pcre_src" -B "$out/pcre2-build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
    -DCMAKE_INSTALL_PREFIX="$out/pcre2" -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_BUILD_PCRE2_16=OFF \
    -DPCRE2_BUILD_PCRE2_32=OFF -DPCRE2_SUPPORT_JIT=OFF -DPCRE2_SUPPORT_UNICODE=ON -DPCRE2_BUILD_TESTS=OFF \
    -DPCRE2_BUILD_PCRE2GREP=OFF -DBUILD_SHARED_LIBS=OFF -DPCRE2_SUPPORT_LIBZ=OFF -DPCRE2_SUPPORT_LIBBZ2=OFF \
    -DPCRE2_SUPPORT_LIBEDIT=OFF -DPCRE2_SUPPORT_LIBREADLINE=OFF | tail -3
  ninja -C "$out/pcre2-build" install >/dev/null
fi

# 2. Unicode tables.
tables=$out/generated/unicode_tables.inc
if [ ! -f "$tables" ]; then
  mkdir -p "$out/generated"
  if [ -f "$root/build/generated/unicode_tables.inc" ]; then
    cp "$root/build/generated/unicode_tables.inc" "$tables"
  else
    say "generating the Unicode tables from ICU"
    c++ -std=c++20 -O1 "$root/tools/gen/gen_unicode_tables.cpp" -o "$out/gen_unicode_tables" \
      $(pkg-config --cflags --libs icu-uc)
    "$out/gen_unicode_tables" > "$tables"
  fi
fi

# Header-only libraries from Debian, seen through links (the rest of /usr/include must stay out of the wasm build).
mkdir -p "$out/sysinc"
ln -sfn /usr/include/fmt "$out/sysinc/fmt"
ln -sfn /usr/include/nlohmann "$out/sysinc/nlohmann"

# 3. The engine.
emcmake cmake -S "$root/web" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DWGRT_PCRE2_DIR="$out/pcre2" -DWGRT_UNICODE_TABLES="$tables" -DWGRT_SYSINC="$out/sysinc" >/dev/null
ninja -C "$out" -j"$(nproc)" "$@" wgrt_web

# 4. The site.
mkdir -p "$out/site"
cp "$root/web/index.html" "$root/web/wgrt.js" "$out/wgrt_wasm.js" "$out/wgrt_wasm.wasm" "$out/site/"
say "built $out/site (serve it with: node web/serve.mjs $out/site)"
