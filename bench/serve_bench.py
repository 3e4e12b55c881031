#!/usr/bin/env python3
"""Aggregate generation throughput of `wgrt serve` at 1, 2, 4 and 8 concurrent streams, with per-stream latency:
time to first token (TTFT, from sending the request to the first content chunk) and inter-token time (ITL,
between content chunks). Streaming completions over loopback (Python's http.client), greedy (or --temperature T,
top_k 40, seeded), fixed max_tokens. Before each timed level one untimed warm-up request per stream runs at that
level, so lazily compiled pipelines (llama-server compiles per batch size) are not in the timed rows.
Starts the server itself (--wgrt, model options after --) on a free port in WGRT_TEST_PORTS (default
18100-18199) and ends it by its PID; or measures a running one (--url). Prints a markdown table.
The peer: --llama-server PATH starts llama.cpp's llama-server instead (bench/peers/build_llama_server.sh), with
the options after -- passed as they are (for example -m F.gguf -ngl 99 --parallel 8 -c 8192; llama-server
divides -c among its slots), on the same prompt and requests; its rows have no server-side columns.
Every request sets "ignore_eos": true (llama-server's extension, honoured by wgrt serve too), so both servers
make max_tokens tokens per request whatever the weights.

  bench/serve_bench.py --wgrt build/wgrt -- -m ../shared/models/stories260K/stories260K.bin \
      -t ../shared/models/stories260K/tok512.bin --parallel 8
Options: --streams 1,2,4,8  --requests R (per stream, default 3)  --max-tokens N (default 64)
         --temperature T (default 0)  --warmup-tokens N (default 16)
         --prompt TEXT (default "Once upon a time")  --url http://127.0.0.1:PORT
Aggregate tok/s = all completion tokens / wall time of the level (first request sent to last response done).
A request that ends early (an end token) counts the tokens it made; the table says how many were made.
Client TTFT/ITL are per streamed chunk (a token whose text is not yet a whole character sends none); the server
columns are per token, from /metrics (wgrt_time_to_first_token_seconds, wgrt_inter_token_seconds)."""
import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "serve"))
from serve_util import Server, free_port  # noqa: E402

WGRT_METRICS = True  # False against llama-server (other metric names)


def one_stream(host, port, body, out):
    c = http.client.HTTPConnection(host, port, timeout=600)
    t0 = time.perf_counter()
    c.request("POST", "/v1/completions", body=json.dumps(body), headers={"Content-Type": "application/json"})
    r = c.getresponse()
    assert r.status == 200, r.status
    stamps, tokens, buf = [], 0, b""
    while True:
        line = r.readline()
        if not line:
            break
        line = line.strip()
        if not line.startswith(b"data: "):
            continue
        payload = line[6:]
        if payload == b"[DONE]":
            break
        e = json.loads(payload)
        if e.get("usage"):
            tokens = e["usage"]["completion_tokens"]
        elif e.get("timings") and not tokens:
            tokens = e["timings"].get("predicted_n", 0)
        if e.get("choices") and e["choices"][0].get("text"):
            stamps.append(time.perf_counter())
    c.close()
    out.append({"ttft": stamps[0] - t0 if stamps else float("nan"),
                "itl": [b - a for a, b in zip(stamps, stamps[1:])], "tokens": tokens})


class LlamaServer:
    """llama.cpp's llama-server on 127.0.0.1 at a free port; stop() sends SIGTERM to its PID (then SIGKILL)."""

    def __init__(self, exe, args, timeout=600):
        self.port = free_port()
        self.log_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"llama_server_{os.getpid()}_{self.port}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([exe, *args, "--host", "127.0.0.1", "--port", str(self.port)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.proc.returncode}: see {self.log_path}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-server not healthy in {timeout} s: see {self.log_path}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()


def metrics(host, port):
    if not WGRT_METRICS:
        return {}
    c = http.client.HTTPConnection(host, port, timeout=60)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    c.close()
    return {k: float(v) for k, v in (l.rsplit(" ", 1) for l in text.splitlines() if l and not l.startswith("#"))}


def level(host, port, streams, requests, body):
    results, lock = [], threading.Lock()
    m0 = metrics(host, port)

    def client():
        for _ in range(requests):
            mine = []
            one_stream(host, port, body, mine)
            with lock:
                results.extend(mine)
    ts = [threading.Thread(target=client) for _ in range(streams)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    m1 = metrics(host, port)
    d = lambda k: m1.get(k, float("nan")) - m0.get(k, float("nan"))
    tokens = sum(r["tokens"] for r in results)
    itl = [x for r in results for x in r["itl"]]
    return {"streams": streams, "tok_s": tokens / wall, "tokens": tokens, "wall": wall,
            "ttft_ms": 1000 * statistics.median(r["ttft"] for r in results),
            "itl_ms": 1000 * statistics.median(itl) if itl else float("nan"),
            "itl_p90_ms": 1000 * sorted(itl)[int(0.9 * (len(itl) - 1))] if itl else float("nan"),
            # Server side, per token (a token whose text is not yet a whole character sends no chunk).
            "s_ttft_ms": 1000 * d("wgrt_time_to_first_token_seconds_sum") / max(1, d("wgrt_time_to_first_token_seconds_count") or 1),
            "s_itl_ms": 1000 * d("wgrt_inter_token_seconds_sum") / max(1, d("wgrt_inter_token_seconds_count") or 1)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--wgrt")
    p.add_argument("--url")
    p.add_argument("--llama-server", help="llama-server executable: measure the peer instead of wgrt serve")
    p.add_argument("--streams", default="1,2,4,8")
    p.add_argument("--requests", type=int, default=3)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--prompt", default="Once upon a time")
    p.add_argument("--temperature", type=float, default=0.0, help="0: greedy; > 0 samples (seeded per request)")
    p.add_argument("--warmup-tokens", type=int, default=16, help="tokens per warm-up request at each level")
    p.add_argument("model", nargs=argparse.REMAINDER)
    a = p.parse_args()
    # SIGTERM (a `timeout` around the run) unwinds like Ctrl-C, so the server started here is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    global WGRT_METRICS
    server = None
    margs = [x for x in a.model if x != "--"]
    if a.llama_server:
        WGRT_METRICS = False
        server = LlamaServer(a.llama_server, margs)
        host, port = "127.0.0.1", server.port
    elif a.url:
        u = urllib.parse.urlparse(a.url)
        host, port = u.hostname, u.port
    else:
        server = Server(a.wgrt, margs, timeout=600)
        host, port = "127.0.0.1", server.port
    body = {"prompt": a.prompt, "max_tokens": a.max_tokens, "temperature": a.temperature, "stream": True,
            "stream_options": {"include_usage": True}, "ignore_eos": True}
    if a.temperature > 0:
        body.update(top_k=40, seed=1234)
    try:
        rows = []
        for s in a.streams.split(","):
            # Warm-up at this stream level, untimed: both servers compile pipelines lazily per batch shape
            # (llama-server per batch size), so the timed requests below see steady state.
            level(host, port, int(s), 1, dict(body, max_tokens=a.warmup_tokens))
            rows.append(level(host, port, int(s), a.requests, body))
            r = rows[-1]  # progress on stderr: a run cut short by a time limit keeps its finished levels
            print(f"level {r['streams']}: {r['tok_s']:.2f} tok/s, TTFT {r['ttft_ms']:.0f} ms, ITL {r['itl_ms']:.0f} ms",
                  file=sys.stderr, flush=True)
    finally:
        if server:
            server.stop()
    base = rows[0]["tok_s"]
    print("| streams | aggregate tok/s | vs 1 stream | median TTFT ms | median ITL ms | p90 ITL ms | server mean TTFT ms "
          "| server mean ITL ms | tokens | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['streams']} | {r['tok_s']:.1f} | {r['tok_s'] / base:.2f}x | {r['ttft_ms']:.1f} | {r['itl_ms']:.1f} | "
              f"{r['itl_p90_ms']:.1f} | {r['s_ttft_ms']:.1f} | {r['s_itl_ms']:.1f} | {r['tokens']} | {r['wall']:.1f} |")


if __name__ == "__main__":
    main()
