"""wgrt serve group `lifecycle` (run by test_serve.py): /health 503 while loading, SIGTERM drains in-flight
requests then exits 0, 503 during shutdown, a port in use is a clear one-line error."""
import json
import signal
import threading
import time
import unittest

from serve_case import ARGS, stories_args
from serve_util import Server


class Lifecycle(unittest.TestCase):
    def test_health_503_while_loading(self):
        s = Server(ARGS.wgrt, stories_args(), wait_ready=False)
        try:
            seen = set()
            end = time.time() + 60
            while time.time() < end and 200 not in seen:
                try:
                    st, _, body = s.request("GET", "/health", timeout=5)
                    seen.add(st)
                    if st == 503:
                        self.assertIn("loading", json.loads(body)["error"]["message"])
                        st2, _, _ = s.post("/v1/completions", {"prompt": "x"})
                        seen.add(("completion", st2))
                except OSError:
                    time.sleep(0.005)
            self.assertIn(503, seen)  # the server listens before the model is loaded
            self.assertIn(200, seen)
        finally:
            self.assertEqual(s.stop(), 0)

    def test_sigterm_drains_then_exits_0(self):
        s = Server(ARGS.wgrt, stories_args(), ["--parallel", "2", "--drain-timeout", "60"])
        out = {}

        def long_stream():
            out["stream"] = s.stream("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 300, "temperature": 0})

        def long_whole():
            out["whole"] = s.post("/v1/completions", {"prompt": "The dog", "max_tokens": 300, "temperature": 0})
        ts = [threading.Thread(target=long_stream), threading.Thread(target=long_whole)]
        for t in ts:
            t.start()
        end = time.time() + 30
        while time.time() < end and s.metrics()["wgrt_requests_running"] < 2:
            time.sleep(0.02)
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        st, _, body = s.post("/v1/completions", {"prompt": "late", "max_tokens": 2})
        self.assertEqual(st, 503)
        self.assertIn("shutting down", body["error"]["message"])
        self.assertEqual(s.request("GET", "/health")[0], 503)
        for t in ts:
            t.join(120)
        self.assertEqual(s.proc.wait(60), 0)
        s.stop()
        st, raw, events, done = out["stream"]
        self.assertTrue(done)
        self.assertEqual(events[-1]["choices"][0]["finish_reason"], "length")
        self.assertEqual(out["whole"][0], 200)  # running at SIGTERM, answered in full
        self.assertIn(out["whole"][2]["choices"][0]["finish_reason"], ("stop", "length"))
        self.assertGreater(out["whole"][2]["usage"]["completion_tokens"], 20)
        self.assertIn("stopped", s.output())

    def test_port_in_use_is_a_clear_error(self):
        a = Server(ARGS.wgrt, stories_args())
        try:
            import subprocess
            r = subprocess.run([ARGS.wgrt, "serve", *stories_args(), "--port", str(a.port)], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertIn("wgrt: error: cannot listen on 127.0.0.1:", r.stderr)
        finally:
            self.assertEqual(a.stop(), 0)
