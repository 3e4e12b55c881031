#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine (as root), build, and run the main job on the default model.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
exec "$root/build/wgrt" info "$@"
