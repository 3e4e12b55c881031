#!/usr/bin/env bash
# wgrt set-up for a fresh Debian 12 (bookworm) machine, run as root.
# Idempotent: every step checks first and says what it installs or skips.
# Installs: build tools and Debian -dev libraries (clang + libclang-rt-14-dev for the libFuzzer targets;
# chromium-common for its SwiftShader Vulkan driver, the second CPU adapter the adapter-listing test needs),
# the Vulkan loader, Mesa lavapipe >= 25 from bookworm-backports, and Dawn (libwebgpu_wrapper.so from npm
# bun-webgpu-linux-x64@0.1.7, sha256-checked) into third_party/dawn/ (not committed).
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
pkgs=(build-essential cmake ninja-build pkg-config git ca-certificates curl nodejs npm
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libfmt-dev
      libpcre2-dev libvulkan1 vulkan-tools python3
      clang libclang-rt-14-dev chromium-common)
missing=()
for p in "${pkgs[@]}"; do
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

# 3. Dawn from npm, sha256-checked.
dawn_dir="$root/third_party/dawn"
dawn_so="$dawn_dir/libwebgpu_wrapper.so"
dawn_sha=3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788
if [ -f "$dawn_so" ] && echo "$dawn_sha  $dawn_so" | sha256sum -c --status; then
  say "Dawn: already installed at $dawn_so"
else
  say "downloading Dawn: npm bun-webgpu-linux-x64@0.1.7"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent bun-webgpu-linux-x64@0.1.7 >/dev/null) || die "npm pack bun-webgpu-linux-x64@0.1.7 failed (network or registry)"
  tar -xzf "$tmp"/bun-webgpu-linux-x64-0.1.7.tgz -C "$tmp" package/libwebgpu_wrapper.so || die "the npm package has no package/libwebgpu_wrapper.so"
  echo "$dawn_sha  $tmp/package/libwebgpu_wrapper.so" | sha256sum -c --status \
    || die "checksum mismatch for libwebgpu_wrapper.so (expected $dawn_sha)"
  mkdir -p "$dawn_dir"; mv "$tmp/package/libwebgpu_wrapper.so" "$dawn_so"; rm -rf "$tmp"
  say "Dawn installed at $dawn_so (sha256 ok)"
fi
say "done"
