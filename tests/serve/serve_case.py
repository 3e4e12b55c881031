"""The shared fixture of the wgrt serve test groups (tests/serve/test_<group>.py, run one group per ctest by
test_serve.py): the command line the groups read (ARGS: .wgrt the binary, .root the repo root, .chat_model the
synthesized qwen2 chat GGUF; filled by test_serve.py before any test runs), stories260K's model arguments (read
from ../shared relative to the repo root), the single-sequence engine's greedy completion, and ServerCase: one
`wgrt serve` per test class, started before its first test and ended by its own PID after the last (the exit
status must be 0). Free loopback ports come from serve_util (WGRT_TEST_PORTS, default 18100-18199)."""
import argparse
import os
import unittest

from serve_util import run

ARGS = argparse.Namespace(wgrt=None, root=None, chat_model="")


def stories_args():
    d = os.path.join(ARGS.root, "..", "shared", "models", "stories260K")
    return ["-m", os.path.join(d, "stories260K.bin"), "-t", os.path.join(d, "tok512.bin")]


def generate_alone(prompt, n):
    """The single-sequence engine's greedy completion (wgrt generate prints prompt + completion + newline)."""
    out = run([ARGS.wgrt, "generate", *stories_args(), "-p", prompt, "-n", str(n)])
    assert out.startswith(prompt), out
    return out[len(prompt):].removesuffix("\n")


class ServerCase(unittest.TestCase):
    """A test class sharing one server as self.s: subclasses define the classmethod start() -> serve_util.Server
    (called once, in setUpClass); tearDownClass stops it (SIGTERM to its PID) and asserts it exited 0."""

    @classmethod
    def start(cls):
        raise NotImplementedError("a ServerCase defines start()")

    @classmethod
    def setUpClass(cls):
        cls.s = cls.start()

    @classmethod
    def tearDownClass(cls):
        assert cls.s.stop() == 0
