#!/usr/bin/env bash
# Starts N `wgrt serve` instances and nginx in front of them (deploy/nginx.conf, round-robin) on 127.0.0.1,
# all in the foreground: Ctrl-C or SIGTERM stops nginx and every instance by its PID (instances drain).
#
#   deploy/run_local.sh [--wgrt PATH] [--ports P0,P1,...,PN] [--run-dir DIR] -- <wgrt serve options>
#   deploy/run_local.sh --ports 8080,8081,8082 -- -m model.gguf --parallel 4
#
# P0 is nginx's port, P1..PN the instances' (N = the number of instance ports; default 8080,8081,8082).
# DIR (default: a new folder under $TMPDIR) gets nginx.conf, nginx's temp files, instance-<i>.pid,
# instance-<i>.log and nginx.log. Prints "ready: http://127.0.0.1:P0" once every instance is healthy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wgrt="$root/build/wgrt"
ports="8080,8081,8082"
run=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wgrt) wgrt="$2"; shift 2 ;;
    --ports) ports="$2"; shift 2 ;;
    --run-dir) run="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_local.sh: error: unknown option '$1' (options before --: --wgrt, --ports, --run-dir)" >&2; exit 1 ;;
  esac
done
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "run_local.sh: error: nginx is not installed (scripts/setup.sh installs nginx-light)" >&2; exit 1; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
IFS=, read -r -a p <<< "$ports"
[ "${#p[@]}" -ge 2 ] || { echo "run_local.sh: error: --ports needs nginx's port and at least one instance port" >&2; exit 1; }
[ -n "$run" ] || run=$(mktemp -d "${TMPDIR:-/tmp}/wgrt_deploy.XXXXXX")
mkdir -p "$run/temp"

pids=()
stop() {
  trap - TERM INT EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap 'stop; exit 0' TERM INT
trap stop EXIT

upstreams=""
for i in $(seq 1 $((${#p[@]} - 1))); do
  "$wgrt" serve --host 127.0.0.1 --port "${p[$i]}" "$@" > "$run/instance-$i.log" 2>&1 &
  pids+=($!)
  echo $! > "$run/instance-$i.pid"
  upstreams+="    server 127.0.0.1:${p[$i]} max_fails=1 fail_timeout=10s;\n"
done
# deploy/nginx.conf with this run's listen port and upstream servers.
awk -v listen="${p[0]}" -v ups="$upstreams" '
  /^    server 127\.0\.0\.1:808[1-9]/ { if (!done) { printf "%s", ups; done = 1 } next }
  /listen 127\.0\.0\.1:8080;/ { sub(/8080/, listen) }
  { print }' "$root/deploy/nginx.conf" > "$run/nginx.conf"
"$nginx_bin" -p "$run" -c "$run/nginx.conf" -e stderr -g "daemon off;" > "$run/nginx.log" 2>&1 &
pids+=($!)
echo $! > "$run/nginx.pid"

for i in $(seq 1 $((${#p[@]} - 1))); do
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:${p[$i]}/health" >/dev/null 2>&1 && break
    kill -0 "${pids[$((i - 1))]}" 2>/dev/null || { echo "run_local.sh: error: instance $i exited (see $run/instance-$i.log)" >&2; exit 1; }
    sleep 0.1
  done
done
echo "ready: http://127.0.0.1:${p[0]} (run dir $run)"
wait -n "${pids[@]}" || true
# One child ended on its own (nginx, or an instance killed from outside): keep serving with the rest until
# told to stop.
while true; do
  alive=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ "$alive" = 1 ] || exit 0
  sleep 0.5
done
