"""Helpers for the wgrt serve tests: free loopback ports in the range given by WGRT_TEST_PORTS (default
18100-18199), a server started by the test and ended by its own PID, and an HTTP client on Python's standard
http.client. Everything is bounded in time."""
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import time


def port_range():
    lo, hi = os.environ.get("WGRT_TEST_PORTS", "18100-18199").split("-")
    return int(lo), int(hi)


def free_port():
    lo, hi = port_range()
    ports = list(range(lo, hi + 1))
    random.shuffle(ports)
    for p in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise RuntimeError(f"no free port in {lo}-{hi}")


class Server:
    """`wgrt serve` on 127.0.0.1 at a free port; stop() sends SIGTERM to its PID and waits (then SIGKILL)."""

    def __init__(self, wgrt, model_args, extra=(), wait_ready=True, timeout=60, env=None):
        self.port = free_port()
        self.log_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"wgrt_serve_{os.getpid()}_{self.port}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([wgrt, "serve", *model_args, "--port", str(self.port), *extra],
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, **env) if env else None)
        if wait_ready:
            self.wait_health(timeout)

    def wait_health(self, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.output()}")
            try:
                st, _, _ = self.request("GET", "/health", timeout=2)
                if st == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server not healthy in time: " + self.output())

    def output(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def conn(self, timeout=60):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, timeout=60):
        c = self.conn(timeout)
        try:
            data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
            c.request(method, path, body=data, headers=headers or {"Content-Type": "application/json"})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read().decode("utf-8", "replace")
        finally:
            c.close()

    def post(self, path, body, headers=None, timeout=120):
        st, hd, text = self.request("POST", path, body, headers, timeout)
        return st, hd, (json.loads(text) if text else None)

    def stream(self, path, body, timeout=120):
        """POSTs with stream: true; returns (status, raw SSE text, [parsed JSON events], done_seen)."""
        c = self.conn(timeout)
        try:
            c.request("POST", path, body=json.dumps(dict(body, stream=True)), headers={"Content-Type": "application/json"})
            r = c.getresponse()
            raw = r.read().decode("utf-8")
            return r.status, raw, *parse_sse(raw)
        finally:
            c.close()

    def metrics(self, headers=None):
        st, _, text = self.request("GET", "/metrics", headers=headers)
        assert st == 200, st
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()
        return self.proc.returncode


def parse_sse(raw):
    """SSE framing: every event is 'data: <payload>\\n\\n'; the last one is [DONE]. Returns (events, done)."""
    assert raw.endswith("\n\n"), repr(raw[-50:])
    events, done = [], False
    for block in raw[:-2].split("\n\n"):
        assert block.startswith("data: ") and "\n" not in block, repr(block)
        payload = block[len("data: "):]
        assert not done, "event after [DONE]"
        if payload == "[DONE]":
            done = True
        else:
            events.append(json.loads(payload))
    return events, done


def stream_text(events, chat):
    out = ""
    for e in events:
        for ch in e.get("choices", []):
            out += (ch["delta"].get("content") or "") if chat else ch["text"]
    return out


def run(cmd, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd}: {r.returncode}\n{r.stderr}"
    return r.stdout
