#!/usr/bin/env bash
# Assembles the ignored folders an H200 batch carries (the device tool's carry [".gl", ".devlibs"]), on the
# machine that built wgrt (after scripts/setup.sh and a build in $BUILD, default build/):
#   .gl/*.deb            the Vulkan loader and glvnd packages NVIDIA's ICD needs (apt-get download), unpacked
#                        there by .devlibs/env.sh
#   .devlibs/env.sh      sourced by bench/h200/scripts/lib.sh: unpacks .gl, sets VK_DRIVER_FILES and
#                        LD_LIBRARY_PATH
#   .devlibs/libs/       Dawn (third_party/dawn) and the shared libraries the binaries need beyond glibc
#   .devlibs/new/        stripped wgrt, wgrt_bench_ops, wgrt_bench_batch of $BUILD (rename copies to *_old for
#                        an A/B batch)
#   .devlibs/peers/      llama.cpp's Vulkan llama-bench and libgomp (../shared/peers)
#   .devlibs/wgrt_llamacpp_helper, .devlibs/llamacpp-cpu.tar.xz   llama.cpp's quantizer (node-llama-cpp's CPU
#                        prebuilt, bench/node_modules) for lib.sh's `quantize`
# The carry limit is 64 MiB in all; the script prints the total. Usage: bash bench/h200/scripts/make_devlibs.sh
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
B=${BUILD:-build}
for f in "$B/wgrt" "$B/bench/wgrt_bench_ops" "$B/tests/wgrt_llamacpp_helper" third_party/dawn/libwebgpu_wrapper.so; do
  [ -e "$f" ] || { echo "make_devlibs: $f is missing (run scripts/setup.sh and build $B first)" >&2; exit 1; }
done
grep -qs '^/.devlibs' .git/info/exclude || { mkdir -p .git/info; printf '/.devlibs\n/.gl\n' >> .git/info/exclude; }
mkdir -p .gl .devlibs/libs .devlibs/new .devlibs/peers
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
  (cd .gl && apt-get download libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2 >/dev/null)
fi
bins=("$B/wgrt" "$B/bench/wgrt_bench_ops")
[ -x "$B/bench/wgrt_bench_batch" ] && bins+=("$B/bench/wgrt_bench_batch")
for b in "${bins[@]}"; do strip -o ".devlibs/new/$(basename "$b")" "$b"; done
cp third_party/dawn/libwebgpu_wrapper.so .devlibs/libs/
ldd "${bins[@]}" | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*)\.so|libwebgpu_wrapper|libvulkan' |
  while read -r l; do cp -L "$l" .devlibs/libs/; done
cp ../shared/peers/llama-bench-vulkan.xz ../shared/peers/libgomp.so.1 .devlibs/peers/
strip -o .devlibs/wgrt_llamacpp_helper "$B/tests/wgrt_llamacpp_helper"
[ -f .devlibs/llamacpp-cpu.tar.xz ] ||
  tar -cJf .devlibs/llamacpp-cpu.tar.xz -C bench/node_modules/@node-llama-cpp/linux-x64/bins linux-x64
cat > .devlibs/env.sh <<'EOF'
# Sourced at the repo root on the H200 (bench/h200/scripts/lib.sh); made by bench/h200/scripts/make_devlibs.sh.
for f in "$PWD"/.gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig 2>/dev/null
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.devlibs/libs:$PWD/.devlibs/peers${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
EOF
du -sh .gl .devlibs | tr '\n' ' '; echo; du -sc .gl .devlibs | tail -1
