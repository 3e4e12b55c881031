"""wgrt serve group `basic` (run by test_serve.py): stories260K: health, models, greedy goldens equal `wgrt
generate` (the single-sequence engine), SSE framing, usage counts, stop strings, seeded sampling, metrics."""
import json

from serve_case import ARGS, ServerCase, generate_alone, stories_args
from serve_util import Server, stream_text


class Basic(ServerCase):
    @classmethod
    def start(cls):
        return Server(ARGS.wgrt, stories_args(), ["--parallel", "2"])

    def test_health_and_models(self):
        st, _, body = self.s.request("GET", "/health")
        self.assertEqual((st, json.loads(body)), (200, {"status": "ok"}))
        st, _, body = self.s.request("GET", "/v1/models")
        m = json.loads(body)
        self.assertEqual(st, 200)
        self.assertEqual(m["object"], "list")
        self.assertEqual(m["data"][0]["id"], "stories260K.bin")
        self.assertEqual(m["data"][0]["object"], "model")

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
