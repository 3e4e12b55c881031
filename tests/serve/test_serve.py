#!/usr/bin/env python3
"""wgrt serve end to end over loopback HTTP (Python's http.client), one group per ctest:
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
import json
import os
import signal
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, run, stream_text  # noqa: E402

ARGS = None


def stories_args():
    d = os.path.join(ARGS.root, "..", "shared", "models", "stories260K")
    return ["-m", os.path.join(d, "stories260K.bin"), "-t", os.path.join(d, "tok512.bin")]


def generate_alone(prompt, n):
    """The single-sequence engine's greedy completion (wgrt generate prints prompt + completion + newline)."""
    out = run([ARGS.wgrt, "generate", *stories_args(), "-p", prompt, "-n", str(n)])
    assert out.startswith(prompt), out
    return out[len(prompt):].removesuffix("\n")


class Basic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Server(ARGS.wgrt, stories_args(), ["--parallel", "2"])

    @classmethod
    def tearDownClass(cls):
        assert cls.s.stop() == 0

    def test_health_and_models(self):
        st, _, body = self.s.request("GET", "/health")
        self.assertEqual((st, json.loads(body)), (200, {"status": "ok"}))
        st, _, body = self.s.request("GET", "/v1/models")
        m = json.loads(body)
        self.assertEqual(st, 200)
        self.assertEqual(m["object"], "list")
        self.assertEqual(m["data"][0]["id"], "stories260K.bin")
        self.assertEqual(m["data"][0]["object"], "model")

    def test_logprobs_shapes(self):
        # Completions (logprobs = 3 alternatives) and chat (logprobs true, top_logprobs 2), greedy: one entry per
        # completion token, the texts joined are the completion, each chosen token is its step's most likely one
        # (greedy) with logprob <= 0, offsets count bytes. The values themselves: tests/models/serve_logprobs_test.cpp.
        st, _, r = self.s.post("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 10, "temperature": 0,
                                                   "logprobs": 3, "ignore_eos": True})
        self.assertEqual(st, 200, r)
        c = r["choices"][0]
        lp = c["logprobs"]
        self.assertEqual(len(lp["tokens"]), r["usage"]["completion_tokens"])
        self.assertEqual("".join(lp["tokens"]), c["text"])
        self.assertEqual(lp["text_offset"], [sum(len(t.encode()) for t in lp["tokens"][:i]) for i in range(len(lp["tokens"]))])
        for tok, l, top in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"]):
            self.assertLessEqual(l, 0)
            self.assertLessEqual(len(top), 3)
            self.assertAlmostEqual(max(top.values()), l, places=5)
            self.assertIn(tok, top)
        self.assertIsNone(self.s.post("/v1/completions", {"prompt": "x", "max_tokens": 2})[2]["choices"][0]["logprobs"])

    def test_greedy_golden_equals_single_sequence_engine(self):
        for prompt, n in [("Once upon a time", 30), ("The little dog", 17)]:
            st, _, r = self.s.post("/v1/completions", {"prompt": prompt, "max_tokens": n, "temperature": 0})
            self.assertEqual(st, 200, r)
            self.assertEqual(r["object"], "text_completion")
            self.assertEqual(r["choices"][0]["text"], generate_alone(prompt, n))
            self.assertEqual(r["choices"][0]["finish_reason"], "length")
            self.assertEqual(r["usage"]["completion_tokens"], n)
            self.assertEqual(r["usage"]["total_tokens"], r["usage"]["prompt_tokens"] + n)
        # The literal golden (llama2.c run.c's greedy stories260K text, as the model tests know it).
        st, _, r = self.s.post("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 12, "temperature": 0})
        self.assertEqual(r["choices"][0]["text"], ", there was a little girl named Lily. She")
        self.assertEqual(r["usage"]["prompt_tokens"], 5)  # BOS + 4 tokens

    def test_sse_framing_and_stream_equals_whole(self):
        body = {"prompt": "Once upon a time", "max_tokens": 20, "temperature": 0}
        st, hd, whole = self.s.post("/v1/completions", body)
        st, raw, events, done = self.s.stream("/v1/completions", dict(body, stream_options={"include_usage": True}))
        self.assertEqual(st, 200)
        self.assertTrue(done)
        self.assertTrue(raw.endswith("data: [DONE]\n\n"))
        self.assertEqual(stream_text(events, False), whole["choices"][0]["text"])
        self.assertTrue(all(e["object"] == "text_completion" and e["id"] == events[0]["id"] for e in events))
        finals = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
        self.assertEqual(len(finals), 1)
        self.assertEqual(finals[0]["choices"][0]["finish_reason"], "length")
        self.assertEqual(events[-1]["choices"], [])
        self.assertEqual(events[-1]["usage"]["completion_tokens"], 20)

    def test_stop_string(self):
        st, _, r = self.s.post("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 40, "temperature": 0, "stop": ["Lily"]})
        self.assertEqual(r["choices"][0]["text"], ", there was a little girl named ")
        self.assertEqual(r["choices"][0]["finish_reason"], "stop")
        st, raw, events, done = self.s.stream("/v1/completions", {"prompt": "Once upon a time", "max_tokens": 40, "temperature": 0, "stop": "girl"})
        self.assertEqual(stream_text(events, False), ", there was a little ")

    def test_ignore_eos_runs_to_max_tokens(self):
        # Greedy stories260K from "Once upon a time" ends its story with an end token well inside 400 tokens.
        body = {"prompt": "Once upon a time", "max_tokens": 400, "temperature": 0}
        r1 = self.s.post("/v1/completions", body)[2]
        self.assertEqual(r1["choices"][0]["finish_reason"], "stop")
        n1 = r1["usage"]["completion_tokens"]
        self.assertLess(n1, 400)
        r2 = self.s.post("/v1/completions", dict(body, ignore_eos=True))[2]
        self.assertEqual(r2["choices"][0]["finish_reason"], "length")
        self.assertEqual(r2["usage"]["completion_tokens"], 400)
        self.assertTrue(r2["choices"][0]["text"].startswith(r1["choices"][0]["text"]))

    def test_seeded_sampling_repeats(self):
        body = {"prompt": "One day", "max_tokens": 25, "temperature": 0.9, "top_p": 0.95, "top_k": 40, "min_p": 0.01, "seed": 42}
        a = self.s.post("/v1/completions", body)[2]["choices"][0]["text"]
        b = self.s.post("/v1/completions", body)[2]["choices"][0]["text"]
        c = self.s.post("/v1/completions", dict(body, seed=43))[2]["choices"][0]["text"]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_metrics_prometheus_text(self):
        before = self.s.metrics()
        self.s.post("/v1/completions", {"prompt": "Hi", "max_tokens": 7, "temperature": 0})
        st, hd, text = self.s.request("GET", "/metrics")
        self.assertTrue(hd["Content-Type"].startswith("text/plain"))
        for name in ["requests_total", "tokens_generated_total", "tokens_per_second", "queue_depth", "kv_cache_usage_ratio"]:
            self.assertIn(f"# TYPE wgrt_{name} ", text)
        after = self.s.metrics()
        self.assertEqual(after["wgrt_tokens_generated_total"] - before["wgrt_tokens_generated_total"], 7)
        self.assertEqual(after['wgrt_requests_total{outcome="ok"}'] - before['wgrt_requests_total{outcome="ok"}'], 1)
        self.assertEqual(after["wgrt_kv_cache_capacity_tokens"], 2 * 512)
        self.assertGreater(after["wgrt_tokens_per_second"], 0)


class Chat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Server(ARGS.wgrt, ["-m", ARGS.chat_model], ["--parallel", "3"])

    @classmethod
    def tearDownClass(cls):
        assert cls.s.stop() == 0

    def test_chat_golden_equals_wgrt_chat(self):
        for q in ["hello there", "what is two plus two"]:
            want = run([ARGS.wgrt, "chat", "-m", ARGS.chat_model, "-p", q, "-n", "24"]).removesuffix("\n")
            st, _, r = self.s.post("/v1/chat/completions", {"messages": [{"role": "user", "content": q}], "max_tokens": 24, "temperature": 0})
            self.assertEqual(st, 200, r)
            self.assertEqual(r["object"], "chat.completion")
            self.assertEqual(r["choices"][0]["message"], {"role": "assistant", "content": want})
            self.assertIn(r["choices"][0]["finish_reason"], ("stop", "length"))
            self.assertGreater(len(want), 0)

    def test_chat_stream_deltas(self):
        body = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "max_tokens": 16, "temperature": 0}
        whole = self.s.post("/v1/chat/completions", body)[2]
        st, raw, events, done = self.s.stream("/v1/chat/completions", body)
        self.assertTrue(done)
        self.assertEqual(events[0]["object"], "chat.completion.chunk")
        self.assertEqual(events[0]["choices"][0]["delta"].get("role"), "assistant")
        self.assertEqual(stream_text(events, True), whole["choices"][0]["message"]["content"])
        self.assertEqual(events[-1]["choices"][0]["finish_reason"], whole["choices"][0]["finish_reason"])

    def test_chat_logprobs(self):
        # logprobs true, top_logprobs 2, greedy: one entry per completion token, bytes = the token text, the chosen
        # token the most likely.
        st, _, r = self.s.post("/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 6,
                                                        "temperature": 0, "logprobs": True, "top_logprobs": 2})
        self.assertEqual(st, 200, r)
        content = r["choices"][0]["logprobs"]["content"]
        self.assertEqual(len(content), r["usage"]["completion_tokens"])
        for e in content:
            self.assertTrue(e["bytes"])
            try:
                self.assertEqual(bytes(e["bytes"]).decode(), e["token"])
            except UnicodeDecodeError:  # part of a character: the text field carries U+FFFD, the bytes are exact
                pass
            self.assertEqual(len(e["top_logprobs"]), 2)
            self.assertAlmostEqual(e["top_logprobs"][0]["logprob"], e["logprob"], places=5)
            self.assertGreaterEqual(e["top_logprobs"][0]["logprob"], e["top_logprobs"][1]["logprob"])

    def test_chat_n_choices(self):
        body = {"messages": [{"role": "user", "content": "hello there"}], "max_tokens": 12, "temperature": 1.0, "seed": 3}
        alone = [self.s.post("/v1/chat/completions", dict(body, seed=3 + i))[2]["choices"][0]["message"]["content"] for i in range(2)]
        st, _, r = self.s.post("/v1/chat/completions", dict(body, n=2))
        self.assertEqual(st, 200, r)
        self.assertEqual([c["message"]["content"] for c in r["choices"]], alone)
        st, raw, events, done = self.s.stream("/v1/chat/completions", dict(body, n=2))
        self.assertTrue(done)
        roles = [c["index"] for e in events for c in e["choices"] if c["delta"].get("role") == "assistant"]
        self.assertEqual(sorted(roles), [0, 1])  # one role delta per choice
        per = ["", ""]
        for e in events:
            for c in e["choices"]:
                per[c["index"]] += c["delta"].get("content") or ""
        self.assertEqual(per, alone)

    def test_second_turn_reuses_the_slot_cache(self):
        msgs = [{"role": "user", "content": "tell me a story"}]
        r1 = self.s.post("/v1/chat/completions", {"messages": msgs, "max_tokens": 8, "temperature": 0})[2]
        msgs += [{"role": "assistant", "content": r1["choices"][0]["message"]["content"]}, {"role": "user", "content": "more"}]
        r2 = self.s.post("/v1/chat/completions", {"messages": msgs, "max_tokens": 8, "temperature": 0})[2]
        self.assertGreater(r2["usage"]["prompt_tokens_details"]["cached_tokens"], r1["usage"]["prompt_tokens"] // 2)


class Batching(unittest.TestCase):
    def test_concurrent_equal_alone(self):
        prompts = ["Once upon a time", "The cat", "Lily and Tom went", "A big red ball", "One day, a bird", "Sam had a toy"]
        s = Server(ARGS.wgrt, stories_args(), ["--parallel", "4", "--queue", "8"])
        try:
            body = lambda p: {"prompt": p, "max_tokens": 40, "temperature": 0}
            alone = [s.post("/v1/completions", body(p))[2]["choices"][0]["text"] for p in prompts]
            m0 = s.metrics()
            got = [None] * len(prompts)

            def go(i):
                if i % 2:
                    got[i] = stream_text(s.stream("/v1/completions", body(prompts[i]))[2], False)
                else:
                    got[i] = s.post("/v1/completions", body(prompts[i]))[2]["choices"][0]["text"]
            ts = [threading.Thread(target=go, args=(i,)) for i in range(len(prompts))]
            for t in ts:
                t.start()
            for t in ts:
                t.join(120)
            self.assertEqual(got, alone)
            m1 = s.metrics()
            tokens = m1["wgrt_tokens_generated_total"] - m0["wgrt_tokens_generated_total"]
            steps = m1["wgrt_decode_steps_total"] - m0["wgrt_decode_steps_total"]
            self.assertEqual(tokens, 40 * len(prompts))
            # Batched: 240 tokens in far fewer steps than one per token (4 slots: about 60-80 steps).
            self.assertLess(steps, tokens / 2, (steps, tokens))
        finally:
            self.assertEqual(s.stop(), 0)


class Sampling(unittest.TestCase):
    MIXED = [
        {"prompt": "Once upon a time", "temperature": 0},
        {"prompt": "Once upon a time", "temperature": 1.0, "top_k": 1, "seed": 5},  # top_k 1: the argmax
        {"prompt": "The cat", "temperature": 0.9, "seed": 7},
        {"prompt": "Lily and Tom went", "temperature": 1.2, "top_p": 0.9, "min_p": 0.02, "seed": 9},
        {"prompt": "One day, a bird", "temperature": 0.8, "top_k": 40, "repeat_penalty": 1.3, "seed": 11},
        {"prompt": "The cat", "temperature": 0.9, "seed": 8},
    ]

    @classmethod
    def setUpClass(cls):
        cls.s = Server(ARGS.wgrt, stories_args(), ["--parallel", "4", "--queue", "8"], env={"WGRT_GPU_SAMPLING": "1"})

    @classmethod
    def tearDownClass(cls):
        assert cls.s.stop() == 0

    def complete(self, body, n=40, server=None):
        st, _, r = (server or self.s).post("/v1/completions", dict(body, max_tokens=n))
        self.assertEqual(st, 200, r)
        self.assertLessEqual(r["usage"]["completion_tokens"], n)
        return r["choices"][0]["text"]

    def test_mixed_batch_equals_each_alone(self):
        alone = [self.complete(b) for b in self.MIXED]
        self.assertEqual(alone[1], alone[0])        # top_k 1 == greedy
        self.assertNotEqual(alone[2], alone[5])     # the seed matters
        self.assertTrue(all(len(t) > 20 for t in alone), alone)
        m0 = self.s.metrics()
        got = [None] * len(self.MIXED)

        def go(i):
            if i % 2:
                got[i] = stream_text(self.s.stream("/v1/completions", dict(self.MIXED[i], max_tokens=40))[2], False)
            else:
                got[i] = self.complete(self.MIXED[i])
        ts = [threading.Thread(target=go, args=(i,)) for i in range(len(self.MIXED))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        self.assertEqual(got, alone)
        m1 = self.s.metrics()
        tokens = m1["wgrt_tokens_generated_total"] - m0["wgrt_tokens_generated_total"]
        steps = m1["wgrt_decode_steps_total"] - m0["wgrt_decode_steps_total"]
        self.assertLess(steps, tokens / 2, (steps, tokens))  # they shared steps

    def test_seeded_repeats_and_differs_from_the_cpu_draw(self):
        body = {"prompt": "One day", "temperature": 0.9, "top_p": 0.95, "top_k": 40, "min_p": 0.01, "seed": 42}
        a, b, c = self.complete(body), self.complete(body), self.complete(dict(body, seed=43))
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        # The CPU sampler draws in another order (same distribution, other tokens): the GPU path is the one used.
        cpu = Server(ARGS.wgrt, stories_args(), ["--parallel", "2"], env={"WGRT_GPU_SAMPLING": "0"})
        try:
            self.assertNotEqual(self.complete(body, server=cpu), a)
            greedy = {"prompt": "One day", "temperature": 0}
            self.assertEqual(self.complete(greedy, server=cpu), self.complete(greedy))
        finally:
            self.assertEqual(cpu.stop(), 0)

    def test_n_choices(self):
        body = {"prompt": "The cat", "temperature": 0.9, "seed": 7, "max_tokens": 30}
        alone = [self.s.post("/v1/completions", dict(body, seed=7 + i))[2] for i in range(3)]
        st, _, r = self.s.post("/v1/completions", dict(body, n=3))
        self.assertEqual(st, 200, r)
        self.assertEqual([c["index"] for c in r["choices"]], [0, 1, 2])
        self.assertEqual([c["text"] for c in r["choices"]], [a["choices"][0]["text"] for a in alone])
        self.assertEqual([c["finish_reason"] for c in r["choices"]], [a["choices"][0]["finish_reason"] for a in alone])
        self.assertEqual(len({c["text"] for c in r["choices"]}), 3)
        self.assertEqual(r["usage"]["prompt_tokens"], alone[0]["usage"]["prompt_tokens"])
        self.assertEqual(r["usage"]["completion_tokens"], sum(a["usage"]["completion_tokens"] for a in alone))
        self.assertEqual(r["usage"]["total_tokens"], r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"])
        # Streamed: each chunk names its choice; per index the same text, one finish chunk each, usage at the end.
        st, raw, events, done = self.s.stream("/v1/completions", dict(body, n=3, stream_options={"include_usage": True}))
        self.assertTrue(done)
        per = {i: "" for i in range(3)}
        finishes = {}
        for e in events:
            for c in e["choices"]:
                per[c["index"]] += c["text"]
                if c["finish_reason"]:
                    self.assertNotIn(c["index"], finishes)
                    finishes[c["index"]] = c["finish_reason"]
        self.assertEqual([per[i] for i in range(3)], [c["text"] for c in r["choices"]])
        self.assertEqual(sorted(finishes), [0, 1, 2])
        self.assertEqual(events[-1]["usage"], r["usage"] | {"prompt_tokens_details": events[-1]["usage"]["prompt_tokens_details"]})
        # More choices than slots: a 400 naming the limit.
        st, _, e = self.s.post("/v1/completions", dict(body, n=5))
        self.assertEqual(st, 400, e)
        self.assertIn("at most 4", e["error"]["message"])

    def test_n_choices_share_one_prefill(self):
        # A prompt no slot holds: choice 0 prefills it, choices 1..3 copy its KV rows (BatchLlm::copy_prefix) and
        # run only the last prompt token (as their first decode row): prefill_tokens_total grows by one prompt less
        # choice 0's cached tokens, not 4x that.
        # Each choice still equals the seed + i request alone.
        body = {"prompt": "Tom and his sister found a shiny blue stone near the old river", "temperature": 0.9,
                "seed": 21, "max_tokens": 16}
        m0 = self.s.metrics()
        st, _, r = self.s.post("/v1/completions", dict(body, n=4))
        m1 = self.s.metrics()
        self.assertEqual(st, 200, r)
        u = r["usage"]
        self.assertGreater(u["prompt_tokens"], 10)
        ran = m1["wgrt_prefill_tokens_total"] - m0["wgrt_prefill_tokens_total"]
        self.assertEqual(ran, u["prompt_tokens"] - u["prompt_tokens_details"]["cached_tokens"])
        alone = [self.s.post("/v1/completions", dict(body, seed=21 + i))[2]["choices"][0]["text"] for i in range(4)]
        self.assertEqual([c["text"] for c in r["choices"]], alone)
        self.assertGreater(len(set(alone)), 1)

    def test_malformed_sampling_parameters_are_400(self):
        cases = [({"temperature": -0.5}, "'temperature' must be in"), ({"temperature": "hot"}, "'temperature' must be a number"),
                 ({"top_p": 0}, "'top_p' must be in"), ({"top_p": 1.5}, "'top_p' must be in"), ({"min_p": 2}, "'min_p' must be in"),
                 ({"top_k": -1}, "'top_k' must be at least 0"), ({"top_k": 2.5}, "'top_k' must be an integer"),
                 ({"repeat_penalty": 0}, "'repeat_penalty' must be in"), ({"repeat_penalty": 1e9}, "'repeat_penalty' must be in"),
                 ({"seed": "x"}, "'seed' must be an integer")]
        for extra, needle in cases:
            st, _, r = self.s.post("/v1/completions", dict({"prompt": "x", "max_tokens": 3, "temperature": 0.8}, **extra))
            self.assertEqual(st, 400, (extra, r))
            self.assertIn(needle, r["error"]["message"])
            self.assertNotIn("\n", r["error"]["message"])
            self.assertEqual(r["error"]["param"], next(iter(extra)))
        self.assertEqual(self.s.request("GET", "/health")[0], 200)
        self.assertGreater(len(self.complete({"prompt": "x", "temperature": 0.8, "seed": 1}, n=5)), 0)


class Faults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Server(ARGS.wgrt, stories_args(), ["--parallel", "1", "--queue", "1", "--ctx", "64", "--max-body", "4096", "--api-key", "sekret"])
        cls.auth = {"Authorization": "Bearer sekret", "Content-Type": "application/json"}

    @classmethod
    def tearDownClass(cls):
        assert cls.s.stop() == 0

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
                 ({"prompt": "x", "stream": "yes"}, "'stream'"), ({"prompt": "x", "ignore_eos": 1}, "'ignore_eos'"),
                 ({"prompt": "x", "logprobs": 6}, "'logprobs' must be at most 5"), ({"prompt": "x", "logprobs": -1}, "'logprobs' must be at least 0"),
                 ({"prompt": "x", "logprobs": "2"}, "'logprobs' must be an integer"),
                 ({"prompt": "x", "logprobs": 2, "stream": True}, "not available with \"stream\": true")]
        for body, needle in cases:
            self.expect_error(400, self.post("/v1/completions", body), needle)
        chat_cases = [({}, "'messages' is required"), ({"messages": "hi"}, "non-empty array"), ({"messages": [5]}, "must be an object"),
                      ({"messages": [{"content": "hi"}]}, "role must be a string"),
                      ({"messages": [{"role": "user", "content": 5}]}, "content must be"),
                      ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "only text parts"),
                      ({"messages": [{"role": "user", "content": "hi"}], "logprobs": 1}, "'logprobs' must be true or false"),
                      ({"messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2}, "needs 'logprobs': true"),
                      ({"messages": [{"role": "user", "content": "hi"}], "logprobs": True, "top_logprobs": 21}, "at most 20")]
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


class Nginx(unittest.TestCase):
    def test_two_instances_one_killed_mid_run(self):
        import subprocess
        from serve_util import free_port, Server as _S  # noqa: F401
        import http.client
        ports = []
        while len(ports) < 3:
            p = free_port()
            if p not in ports:
                ports.append(p)
        run_dir = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"wgrt_nginx_{os.getpid()}")
        script = os.path.join(ARGS.root, "deploy", "run_local.sh")
        proc = subprocess.Popen(["bash", script, "--wgrt", ARGS.wgrt, "--ports", ",".join(map(str, ports)), "--run-dir", run_dir, "--",
                                 *stories_args(), "--parallel", "4", "--queue", "16"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            line = ""
            end = time.time() + 90
            while time.time() < end and not line.startswith("ready:"):
                line = proc.stdout.readline()
                if not line and proc.poll() is not None:
                    break
            self.assertTrue(line.startswith("ready:"), line)

            def call(body, stream, timeout=120):
                c = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=timeout)
                try:
                    c.request("POST", "/v1/completions", body=json.dumps(dict(body, stream=stream)), headers={"Content-Type": "application/json"})
                    r = c.getresponse()
                    raw = r.read().decode("utf-8", "replace")
                    if r.status != 200:
                        return r.status, None
                    if stream:
                        from serve_util import parse_sse
                        events, done = parse_sse(raw)
                        return (200, stream_text(events, False)) if done else (-1, None)
                    return 200, json.loads(raw)["choices"][0]["text"]
                except (OSError, http.client.HTTPException, AssertionError, ValueError):
                    return -1, None  # cut off
                finally:
                    c.close()
            prompts = ["Once upon a time", "The cat", "Lily went", "A big dog"]
            body = lambda i: {"prompt": prompts[i % 4], "max_tokens": 12, "temperature": 0}
            golden = [call(body(i), False)[1] for i in range(4)]
            self.assertTrue(all(golden))
            records = []  # (start, end, status, ok)
            lock = threading.Lock()
            kill_at = [None]

            def client(k):
                for j in range(20):
                    i = k * 20 + j
                    t0 = time.time()
                    st, text = call(body(i), stream=(i % 2 == 0))
                    with lock:
                        records.append((t0, time.time(), st, st == 200 and text == golden[i % 4]))
            ts = [threading.Thread(target=client, args=(k,)) for k in range(8)]
            t_start = time.time()
            for t in ts:
                t.start()
            while time.time() - t_start < 120:
                with lock:
                    if len(records) >= 40:
                        break
                time.sleep(0.01)
            with open(os.path.join(run_dir, "instance-1.pid")) as f:
                victim = int(f.read())
            kill_at[0] = time.time()
            os.kill(victim, signal.SIGKILL)  # a crash: no drain
            # Until its process is gone its socket still accepts connections (held by it, then reset): the
            # instance is dead once its port refuses.
            dead_at = None
            while dead_at is None and time.time() - kill_at[0] < 30:
                try:
                    socket.create_connection(("127.0.0.1", ports[1]), timeout=1).close()
                    time.sleep(0.01)
                except OSError:
                    dead_at = time.time()
            self.assertIsNotNone(dead_at)
            for t in ts:
                t.join(240)
            self.assertEqual(len(records), 160)
            failed = [r for r in records if not r[3]]
            print(f"nginx run: {len(records)} requests, {len(failed)} lost with the killed instance (dead "
                  f"{dead_at - kill_at[0]:.2f} s after SIGKILL), {time.time() - t_start:.1f} s")
            # Every answer that came back is complete and right; the lost ones were all in flight at the kill
            # (started before it), at most one per client.
            self.assertTrue(all(r[2] in (200, 502, -1) for r in records))
            self.assertTrue(all(r[0] <= dead_at and r[1] >= kill_at[0] for r in failed), (kill_at[0], dead_at, failed))
            self.assertLessEqual(len(failed), 16)
            self.assertTrue(any(r[3] and r[0] > dead_at for r in records))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        self.assertEqual(proc.returncode, 0)
        import shutil
        shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--wgrt", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--chat-model", default="")
    p.add_argument("group")
    ARGS, rest = p.parse_known_args()
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(globals()[ARGS.group.capitalize()])
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    sys.exit(0 if ok else 1)
