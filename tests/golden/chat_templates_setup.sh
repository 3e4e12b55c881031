#!/usr/bin/env bash
# Test fixture of the chat-template conformance suite: extracts llama.cpp's models/templates/*.jinja (68
# third-party chat templates, never committed) from the llama.cpp source bundle that npm node-llama-cpp@3.21.1
# carries (scripts/setup.sh fetches it into third_party/llama.cpp/), then renders the jinja2 goldens with
# make_goldens_chat_templates.py (Debian python3-jinja2). Usage: chat_templates_setup.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: chat_templates_setup.sh OUT_DIR}
bundle=""
for b in "${WGRT_LLAMA_BUNDLE:-}" "$root/third_party/llama.cpp/gitRelease.bundle" \
         "$root/bench/node_modules/node-llama-cpp/llama/gitRelease.bundle"; do
  if [ -n "$b" ] && [ -f "$b" ]; then bundle=$b; break; fi
done
[ -n "$bundle" ] || { echo "chat_templates_setup: no llama.cpp bundle: run scripts/setup.sh (it fetches node-llama-cpp@3.21.1's gitRelease.bundle)" >&2; exit 1; }
py=${WGRT_PYTHON:-/usr/bin/python3}
"$py" -c "import jinja2" 2>/dev/null || { echo "chat_templates_setup: $py has no jinja2: apt-get install python3-jinja2 (scripts/setup.sh)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
git clone -q --bare "$bundle" "$out/llama.git"
git -C "$out/llama.git" archive HEAD models/templates | tar -x -C "$out"
rm -rf "$out/llama.git"
n=$(ls "$out/models/templates"/*.jinja | wc -l)
echo "chat_templates_setup: $n templates from $bundle"
[ "$n" -ge 60 ] || { echo "chat_templates_setup: expected the 68 templates, found $n" >&2; exit 1; }
"$py" "$root/tests/golden/make_goldens_chat_templates.py" "$out/models/templates" "$out"
