#!/usr/bin/env python3
"""wgrt serve end to end over loopback HTTP (Python's http.client), one group per ctest; each group is the test
class of tests/serve/test_<group>.py (shared fixture: serve_case.py; server and HTTP client: serve_util.py):
  basic     stories260K: health, models, greedy goldens equal `wgrt generate` (the single-sequence engine),
            SSE framing, usage counts, stop strings, seeded sampling, metrics
  chat      the synthesized qwen2 chat model: chat completions equal `wgrt chat -p`, streamed deltas
  batching  concurrent requests give the same greedy text as each run alone, and they did share steps
  sampling  n > 1 choices (choice i = the request with seed + i alone; usage sums; streamed by index);
            GPU sampling in the batched graph (WGRT_GPU_SAMPLING=1; lavapipe's policy is the CPU sampler):
            per-request parameters in one mixed batch (greedy, top_k 1 == greedy, temperatures, top-p, min-p,
            repeat_penalty) equal each request alone; seeded repeats; the draw differs from the CPU path's
            (the switch is real); malformed sampling parameters are a 400 and the server stays up
  faults    the bad-input list (400/401/404/405/413, prompt over the context, max_tokens clamp), 503 + Retry-After
            when the queue is full, a client disconnecting mid-stream frees its slot
  lifecycle /health 503 while loading, SIGTERM drains in-flight requests then exits 0, 503 during shutdown
  nginx     deploy/run_local.sh: 2 instances behind nginx, 8 clients x 20 requests (streaming and not); one
            instance killed mid-run loses only the requests it held, the survivor serves the rest
Usage: test_serve.py --wgrt BUILD/wgrt --root REPO --chat-model FILE GROUP"""
import argparse
import importlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_case  # noqa: E402

GROUPS = ["basic", "chat", "batching", "sampling", "faults", "lifecycle", "nginx"]

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--wgrt", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--chat-model", default="")
    p.add_argument("group", choices=GROUPS)
    args, rest = p.parse_known_args()
    vars(serve_case.ARGS).update(vars(args))
    module = importlib.import_module(f"test_{args.group}")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(getattr(module, args.group.capitalize()))
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    sys.exit(0 if ok else 1)
