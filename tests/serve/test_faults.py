"""wgrt serve group `faults` (run by test_serve.py): the bad-input list (400/401/404/405/413, prompt over the
context, max_tokens clamp), 503 + Retry-After when the queue is full, a client disconnecting mid-stream frees its
slot."""
import json
import socket
import threading
import time

from serve_case import ARGS, ServerCase, stories_args
from serve_util import Server


class Faults(ServerCase):
    auth = {"Authorization": "Bearer sekret", "Content-Type": "application/json"}

    @classmethod
    def start(cls):
        return Server(ARGS.wgrt, stories_args(), ["--parallel", "1", "--queue", "1", "--ctx", "64", "--max-body", "4096", "--api-key", "sekret"])

    def post(self, path, body, headers=None):
        return self.s.post(path, body, headers or self.auth)

    def expect_error(self, status, resp, needle=""):
        st, hd, body = resp
        self.assertEqual(st, status, body)
        self.assertIn("error", body)
        self.assertIsInstance(body["error"]["message"], str)
        self.assertIn(needle, body["error"]["message"])
        return hd, body

    def test_api_key(self):
        for h in [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Bearer sekre"}, {"Authorization": "sekret"}]:
            hd, b = self.expect_error(401, self.s.post("/v1/completions", {"prompt": "x"}, h), "API key")
            self.assertEqual(b["error"]["type"], "authentication_error")
        st, _, _ = self.s.request("GET", "/v1/models")
        self.assertEqual(st, 401)
        self.assertEqual(self.s.request("GET", "/health")[0], 200)  # health needs no key
        self.assertEqual(self.post("/v1/completions", {"prompt": "x", "max_tokens": 2})[0], 200)

    def test_bad_bodies_are_400(self):
        cases = [("{bad json", "not valid JSON"), ("[1, 2]", "JSON object"), ({}, "'prompt' is required"),
                 ({"prompt": 5}, "'prompt' must be"), ({"prompt": "x", "max_tokens": "5"}, "'max_tokens' must be an integer"),
                 ({"prompt": "x", "max_tokens": 0}, "at least 1"), ({"prompt": "x", "temperature": -1}, "'temperature' must be in"),
                 ({"prompt": "x", "top_p": 0}, "'top_p'"), ({"prompt": "x", "stop": [1]}, "'stop'"), ({"prompt": "x", "n": 0}, "'n' must be at least 1"),
                 ({"prompt": "x", "n": 17}, "'n' must be at most 16"), ({"prompt": "x", "n": "2"}, "'n' must be an integer"),
                 ({"prompt": "x", "n": 2}, "--parallel"),
                 ({"prompt": "x", "stream": "yes"}, "'stream'"), ({"prompt": "x", "ignore_eos": 1}, "'ignore_eos'")]
        for body, needle in cases:
            self.expect_error(400, self.post("/v1/completions", body), needle)
        chat_cases = [({}, "'messages' is required"), ({"messages": "hi"}, "non-empty array"), ({"messages": [5]}, "must be an object"),
                      ({"messages": [{"content": "hi"}]}, "role must be a string"),
                      ({"messages": [{"role": "user", "content": 5}]}, "content must be"),
                      ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "only text parts")]
        for body, needle in chat_cases:
            self.expect_error(400, self.post("/v1/chat/completions", body), needle)

    def test_prompt_longer_than_context_names_both(self):
        hd, b = self.expect_error(400, self.post("/v1/completions", {"prompt": "the dog ran " * 30}), "but the context holds 64")
        self.assertRegex(b["error"]["message"], r"the prompt has \d+ tokens")

    def test_max_tokens_beyond_context_is_clamped(self):
        st, hd, r = self.post("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 1000, "temperature": 0})
        self.assertEqual(st, 200)
        self.assertEqual(hd.get("X-Wgrt-Max-Tokens-Clamped"), str(64 - 5 + 1))
        self.assertLessEqual(r["usage"]["completion_tokens"], 60)

    def test_size_route_method(self):
        self.expect_error(413, self.post("/v1/completions", {"prompt": "x" * 5000}))
        self.expect_error(404, self._get("/v2/nothing"))
        hd, b = self.expect_error(405, self._get("/v1/completions"), "not allowed")
        self.assertEqual(hd.get("Allow"), "POST")
        hd, b = self.expect_error(405, self._req("POST", "/health"))
        self.assertEqual(hd.get("Allow"), "GET")
        self.expect_error(405, self._req("DELETE", "/v1/models"))

    def _req(self, method, path):
        st, hd, text = self.s.request(method, path, None, self.auth)
        return st, hd, json.loads(text)

    def _get(self, path):
        return self._req("GET", path)

    def test_queue_full_503_retry_after(self):
        # 1 slot + 1 queued: of 4 concurrent long requests at least one is refused with 503 and Retry-After.
        results = []

        def go():
            results.append(self.post("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 55, "temperature": 0}))
        ts = [threading.Thread(target=go) for _ in range(4)]
        for t in ts:
            t.start()
            time.sleep(0.02)
        for t in ts:
            t.join(120)
        refused = [r for r in results if r[0] == 503]
        self.assertGreaterEqual(len(refused), 1, [r[0] for r in results])
        self.assertTrue(all(r[1].get("Retry-After") == "1" for r in refused))
        self.assertTrue(all(r[0] in (200, 503) for r in results))
        self.assertGreaterEqual(sum(r[0] == 200 for r in results), 2)

    def test_disconnect_mid_stream_frees_the_slot(self):
        before = self.s.metrics(self.auth)
        sock = socket.create_connection(("127.0.0.1", self.s.port), timeout=30)
        body = json.dumps({"prompt": "Once upon a time", "max_tokens": 58, "temperature": 0, "stream": True})
        sock.sendall(f"POST /v1/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sekret\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
        got = b""
        while got.count(b"data: ") < 2:
            got += sock.recv(4096)
        sock.close()  # mid-stream
        end = time.time() + 30
        while time.time() < end:
            m = self.s.metrics(self.auth)
            if m['wgrt_requests_total{outcome="cancelled"}'] > before['wgrt_requests_total{outcome="cancelled"}'] and m["wgrt_requests_running"] == 0:
                break
            time.sleep(0.05)
        self.assertEqual(m['wgrt_requests_total{outcome="cancelled"}'] - before['wgrt_requests_total{outcome="cancelled"}'], 1)
        self.assertLess(m["wgrt_tokens_generated_total"] - before["wgrt_tokens_generated_total"], 58)
        # The one slot is free again.
        self.assertEqual(self.post("/v1/completions", {"prompt": "x", "max_tokens": 3})[0], 200)
