// `wgrt chat` and the CLI habits of issue 14, run as a user runs them. Goldens come from an independent path:
// the conversation rendered by hand (tests/models/chat_model.h) and generated from scratch by `wgrt generate`
// (no KV-cache reuse), compared byte for byte with the chat transcript (greedy decoding, deterministic).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "chat_model.h"
#include "support/run_cli.h"
#include "model_test_util.h"
#include "support/paths.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

const std::string kGguf = "-m " + stories("stories260K.gguf");
const std::string kBin = "-m " + stories("stories260K.bin") + " -t " + stories("tok512.bin");

// The continuation `wgrt generate` prints for `prompt` (stdout is the prompt, the continuation, "\n").
std::string generate_from_scratch(const std::string& model_args, const std::string& prompt, const std::string& extra) {
  // -f drops one trailing newline (as llama.cpp does): add one so that the prompt arrives whole.
  RunResult r = run_cli("generate " + model_args + " --temp 0 " + extra + " -f " + text_file("prompt.txt", prompt + "\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, prompt.size()), prompt);
  if (r.out.size() < prompt.size() + 1) return "<short output>";
  return r.out.substr(prompt.size(), r.out.size() - prompt.size() - 1);
}

std::string chatml_builtin(const std::vector<std::string>& turns) {
  std::string s;
  for (size_t i = 0; i < turns.size(); ++i)
    s += std::string("<|im_start|>") + (i % 2 ? "assistant" : "user") + "\n" + turns[i] + "<|im_end|>\n";
  return s + "<|im_start|>assistant\n";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(ChatCli, StoriesOverStdinUsesTheFallbackAndMatchesFromScratchGeneration) {
  RunResult r = run_cli("chat " + kGguf + " -n 24 --temp 0", text_file("turns.txt", "Tell me a story\nWhat next?\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "chat template: built-in 'chatml' (the model has no chat template")) << r.err;
  EXPECT_TRUE(contains(r.err, "[turn 2] prompt: ")) << r.err;
  EXPECT_FALSE(contains(r.err, "[turn 2] prompt: 0 tokens")) << r.err;
  // Golden: each turn's whole conversation, rendered by hand, generated from scratch with the template's stop.
  const std::string stop = " --stop '<|im_end|>' -n 24";
  std::string reply1 = generate_from_scratch(kGguf, chatml_builtin({"Tell me a story"}), stop);
  std::string reply2 = generate_from_scratch(kGguf, chatml_builtin({"Tell me a story", reply1, "What next?"}), stop);
  EXPECT_FALSE(reply1.empty());
  EXPECT_EQ(r.out, reply1 + "\n" + reply2 + "\n");
  // The second turn reused the cache: its summary counts cached tokens.
  EXPECT_FALSE(contains(r.err, "[turn 2] prompt: 0 tokens")) << r.err;
  EXPECT_TRUE(contains(r.err, "(0 cached)")) << "turn 1 starts cold: " << r.err;
  // -p answers once; /exit ends the chat before the next turn.
  RunResult once = run_cli("chat " + kGguf + " -n 24 --temp 0 -p 'Tell me a story'");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  EXPECT_EQ(once.out, reply1 + "\n");
  RunResult ex = run_cli("chat " + kGguf + " -n 24 --temp 0", text_file("exit.txt", "Tell me a story\n/exit\nWhat next?\n"));
  EXPECT_EQ(ex.out, reply1 + "\n");
  // A named built-in and a template file override the fallback.
  RunResult l3 = run_cli("chat " + kGguf + " -n 4 --chat-template llama3 -p hi");
  EXPECT_TRUE(contains(l3.err, "chat template: built-in 'llama3'")) << l3.err;
  std::string file = text_file("t.jinja", "{% for m in messages %}{{ m['content'] }}{% endfor %}");
  RunResult f = run_cli("chat " + kGguf + " -n 4 --verbose-prompt --chat-template " + file + " -p 'Once upon'");
  EXPECT_TRUE(contains(f.err, "prompt:\nOnce upon\n")) << f.err;
  RunResult bad = run_cli("chat " + kGguf + " --chat-template nosuch -p hi");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "wgrt: error: chat template 'nosuch' is neither a file nor a built-in name (chatml,")) << bad.err;
}

TEST(ChatCli, SynthModelWithEmbeddedTemplateMatchesFromScratchGeneration) {
  const std::string model = "-m " + chat_synth_path();
  RunResult r = run_cli("chat " + model + " -n 10 --system 'Be brief.'", text_file("turns.txt", "What is 2+2?\nWhy?\nMore.\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "chat template: the model's tokenizer.chat_template")) << r.err;
  std::vector<std::string> turns;
  std::string want;
  for (const char* q : {"What is 2+2?", "Why?", "More."}) {
    turns.push_back(q);
    std::string reply = generate_from_scratch(model, chatml_by_hand(turns, "Be brief."), "-n 10");
    want += reply + "\n";
    turns.push_back(reply);
  }
  EXPECT_EQ(r.out, want);
  EXPECT_TRUE(contains(r.err, "[turn 3]")) << r.err;
}

TEST(ChatCli, CtrlCStopsTheReplyNotTheSession) {
  // A long reply (-n -1 on a context of 8192): SIGINT while it streams ends that reply; the session reads the
  // next turn, whose reply is interrupted the same way; end of input then ends the chat with status 0.
  const std::string model = chat_synth_path(8192);
  auto dir = cli_test_dir();
  const std::string out = (dir / "sig_out.txt").string(), err = (dir / "sig_err.txt").string();
  int in[2];
  ASSERT_EQ(pipe(in), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    close(in[1]);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execl(WGRT_CLI_PATH, "wgrt", "chat", "-m", model.c_str(), "-n", "-1", "--ctx", "8192", (char*)nullptr);
    _exit(127);
  }
  close(in[0]);
  auto wait_for = [&](const std::string& path, auto pred) {
    for (int i = 0; i < 6000; ++i) {  // 120 s
      if (pred(slurp(path))) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  ASSERT_EQ(write(in[1], "hello\nagain\n", 12), 12);
  EXPECT_TRUE(wait_for(out, [](const std::string& s) { return !s.empty(); }));
  kill(pid, SIGINT);
  EXPECT_TRUE(wait_for(err, [](const std::string& s) { return contains(s, "[turn 1]"); }));
  const size_t first = slurp(out).size();
  EXPECT_TRUE(wait_for(out, [&](const std::string& s) { return s.size() > first; }));
  kill(pid, SIGINT);
  EXPECT_TRUE(wait_for(err, [](const std::string& s) { return contains(s, "[turn 2]"); }));
  close(in[1]);
  int st = 0;
  waitpid(pid, &st, 0);
  const std::string e = slurp(err);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << e;
  EXPECT_TRUE(contains(e, "[turn 1]") && contains(e, "stop: cancelled")) << e;
  EXPECT_TRUE(contains(e.substr(e.find("[turn 2]")), "stop: cancelled")) << e;
}

TEST(ChatCli, GeneratePromptFromFileStdinOrDash) {
  RunResult p = run_cli("generate " + kBin + " -n 12 -p 'Once upon a time'");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const std::string with_nl = text_file("prompt.txt", "Once upon a time\n");
  RunResult f = run_cli("generate " + kBin + " -n 12 -f " + with_nl);
  RunResult in = run_cli("generate " + kBin + " -n 12", with_nl);
  RunResult dash = run_cli("generate " + kBin + " -n 12 -p -", with_nl);
  EXPECT_EQ(f.out, p.out);
  EXPECT_EQ(in.out, p.out) << "non-terminal stdin is the prompt";
  EXPECT_EQ(dash.out, p.out);
  // Empty stdin: BOS alone, as with no prompt.
  RunResult none = run_cli("generate " + kBin + " -n 12");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.out.rfind("Once upon a time", 0), 0u) << none.out;
  RunResult both = run_cli("generate " + kBin + " -p x -f " + with_nl);
  EXPECT_TRUE(contains(both.err, "wgrt: error: give the prompt with -p or -f, not both")) << both.err;
}

TEST(ChatCli, GenerateStopsLimitsSeedsAndIds) {
  // --stop across a token boundary: "Lily" is two tokens or more in tok512 ("Once upon a time, there was a
  // little girl named Lily."); the text stops right before it. Repeatable.
  RunResult full = run_cli("generate " + kBin + " -n 30 --ids");
  ASSERT_EQ(full.exit_code, 0) << full.err;
  RunResult st = run_cli("generate " + kBin + " -n 30 --stop 'girl nam' --stop 'zzz'");
  EXPECT_EQ(st.out, full.out.substr(0, full.out.find("girl nam")) + "\n");
  EXPECT_TRUE(contains(st.err, "stop: stop")) << st.err;
  // -n -1: until EOS or the context end (40 positions: BOS and 39 fed tokens; the 40th generated token is
  // printed but never fed).
  RunResult unl = run_cli("generate " + kBin + " -n -1 -c 40");
  EXPECT_EQ(unl.exit_code, 0) << unl.err;
  EXPECT_TRUE(contains(unl.err, "generated: 40 tokens") || contains(unl.err, "stop: eos")) << unl.err;
  EXPECT_TRUE(contains(unl.err, "context 40")) << "-c is --ctx: " << unl.err;
  // No --seed with sampling: a random seed, printed; repeating it repeats the text.
  RunResult a = run_cli("generate " + kBin + " -n 20 --temp 1 -p Once");
  const size_t at = a.err.find("seed: ");
  ASSERT_NE(at, std::string::npos) << a.err;
  const std::string seed = a.err.substr(at + 6, a.err.find(' ', at + 6) - at - 6);
  RunResult b = run_cli("generate " + kBin + " -n 20 --temp 1 -p Once --seed " + seed);
  EXPECT_EQ(a.out, b.out);
  EXPECT_FALSE(contains(b.err, "seed: ")) << "a given seed is not announced";
  // --ids: the prompt ids (BOS) and the generated ids; --verbose-prompt: each prompt token with its text.
  EXPECT_TRUE(contains(full.err, "prompt ids: 1\ngenerated ids: ")) << full.err;
  RunResult vp = run_cli("generate " + kBin + " -n 1 --verbose-prompt -p 'Once upon'");
  EXPECT_TRUE(contains(vp.err, "prompt: 3 tokens\n       1 -> ''\n")) << vp.err;
}

TEST(ChatCli, WriteErrorsAndLlamaCppHabits) {
  // stdout on a full device: the write error is the exit status.
  int rc = std::system(("timeout 60 " + std::string(WGRT_CLI_PATH) + " generate " + kBin +
                        " -n 4 -p Once </dev/null >/dev/full 2>" + (cli_test_dir() / "full_err.txt").string()).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  EXPECT_EQ(slurp((cli_test_dir() / "full_err.txt").string()),
            "wgrt: error: cannot write to standard output: No space left on device\n");
  rc = std::system(("timeout 60 " + std::string(WGRT_CLI_PATH) + " chat " + kBin + " -n 4 -p Once </dev/null >/dev/full 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  // Notes (accepted, ignored) for flags that mean nothing here; the run goes on.
  RunResult r = run_cli("generate " + kGguf + " -n 2 -p Once -ngl 99 -fa --threads 8 -t 4 -b 512");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* n : {"wgrt: note: -ngl: wgrt always runs every layer on the GPU (ignored)\n",
                        "wgrt: note: -fa: wgrt always uses its fused attention kernels (ignored)\n",
                        "wgrt: note: --threads: wgrt runs on the GPU and has no CPU thread count (ignored)\n",
                        "wgrt: note: -t 4: -t is the llama2.c tokenizer file here, not llama.cpp's thread count",
                        "wgrt: note: -b: wgrt's prompt batch is --prefill-chunk (ignored)\n"})
    EXPECT_TRUE(contains(r.err, n)) << n << " in " << r.err;
  // Errors with the fix.
  RunResult cnv = run_cli("generate " + kGguf + " -cnv");
  EXPECT_EQ(cnv.err, "wgrt: error: -cnv: conversation mode is its own command here: wgrt chat -m MODEL\n");
  RunResult tg = run_cli("generate " + kGguf + " -t " + stories("tok512.bin"));
  EXPECT_EQ(tg.exit_code, 1);
  EXPECT_TRUE(contains(tg.err, "is a GGUF model with its own vocabulary; -t is for llama2.c checkpoints (add --replace-vocab")) << tg.err;
  RunResult rv = run_cli("generate " + kGguf + " -t " + stories("tok512.bin") + " --replace-vocab -n 2 -p Once");
  EXPECT_EQ(rv.exit_code, 0) << rv.err;
  RunResult passwd = run_cli("generate -m /etc/passwd");
  EXPECT_EQ(passwd.exit_code, 1);
  EXPECT_EQ(passwd.err.rfind("wgrt: error: '/etc/passwd' is not a model file: it is not GGUF (no 'GGUF' magic), it looks like text,", 0), 0u) << passwd.err;
  RunResult se = run_cli("synth --preset smollm2-135m --control-token '<|im_end|>' --eot-token '<|eot|>' -o " +
                         (cli_test_dir() / "never.gguf").string());
  EXPECT_EQ(se.err, "wgrt: error: synth config 'smollm2-135m': eot_token '<|eot|>' is not one of control_tokens\n");
  RunResult t4 = run_cli("generate -m " + stories("stories260K.bin") + " --tokenizer 4x");
  EXPECT_TRUE(contains(t4.err, "tokenizer file '4x' does not exist")) << t4.err;
}

TEST(ChatCli, HelpListsEveryOptionWithItsDefault) {
  for (const char* sub : {"generate", "chat", "bench", "graph", "synth", "info"}) {
    RunResult h = run_cli(std::string(sub) + " --help");
    ASSERT_EQ(h.exit_code, 0) << sub;
    // Each option entry (from its "  -x" line to the next) shows "=value", "default", or is required/--help.
    std::vector<std::string> entries;
    std::istringstream lines(h.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  -", 0) == 0) entries.push_back(line);
      else if (!entries.empty() && line.rfind("      ", 0) == 0) entries.back() += line;
    }
    EXPECT_GT(entries.size(), 1u) << sub;
    for (const std::string& e : entries) {
      const std::string head = e.substr(0, e.find("  ", 2));
      EXPECT_TRUE(contains(head, "=") || contains(e, "default") || contains(e, "REQUIRED") || contains(e, "--help"))
          << sub << ": " << e;
    }
  }
}

TEST(ChatCli, DocsCliMdIsCurrent) {
  // docs/CLI.md is generated from the binary's --help texts by scripts/gen_cli_doc.sh.
  const std::string doc = (cli_test_dir() / "CLI.md").string();
  int rc = std::system(("bash " + source_path("scripts/gen_cli_doc.sh") + " " + WGRT_CLI_PATH + " > " + doc).c_str());
  ASSERT_EQ(rc, 0);
  EXPECT_TRUE(slurp(doc) == slurp(source_path("docs/CLI.md")))
      << "docs/CLI.md is stale: run scripts/gen_cli_doc.sh build/wgrt > docs/CLI.md";
}

TEST(ChatCli, ContextOverflowIsAClearErrorOrDropsOldTurns) {
  const std::string model = "-m " + chat_synth_path();
  const std::string turns = text_file("long.txt", "abcdefghij\nabcdefghij\nabcdefghij\n");
  RunResult strict = run_cli("chat " + model + " -n 4 --ctx 100", turns);
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_TRUE(contains(strict.err, "wgrt: error: the conversation needs ")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "tokens with the reply prompt but the context holds 100: start over, use a larger "
                                   "context (--ctx), or let old turns be dropped (--drop-old-turns)\n")) << strict.err;
  EXPECT_TRUE(contains(strict.err, "[turn 1]"));
  RunResult drop = run_cli("chat " + model + " -n 4 --ctx 100 --drop-old-turns", turns);
  EXPECT_EQ(drop.exit_code, 0) << drop.err;
  EXPECT_TRUE(contains(drop.err, "wgrt: note: dropped the 2 oldest messages to fit the context of 100 tokens")) << drop.err;
  EXPECT_TRUE(contains(drop.err, "[turn 3]")) << drop.err;
}

TEST(ChatCli, TerminalSessionPromptsAndEndsOnExitOrCtrlD) {
  // script(1) gives the chat a pseudo-terminal: the interactive mode, with its "> " prompt and hint line.
  if (std::system("script -qec true /dev/null </dev/null >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "script(1) cannot open a pseudo-terminal here";
  const std::string model = chat_synth_path();
  for (const char* input : {"hi\\n/exit\\n", "hi\\n\\004"}) {
    const std::string out = (cli_test_dir() / "tty.txt").string();
    int rc = std::system(("printf '" + std::string(input) + "' | timeout 60 script -qec '" + WGRT_CLI_PATH + " chat -m " +
                          model + " -n 3' /dev/null > " + out).c_str());
    const std::string s = slurp(out);
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << s;
    EXPECT_TRUE(contains(s, "Ctrl-C stops a reply; Ctrl-D or /exit ends the chat")) << s;
    EXPECT_TRUE(contains(s, "> ")) << s;
    EXPECT_TRUE(contains(s, "[turn 1]")) << s;
    EXPECT_FALSE(contains(s, "[turn 2]")) << s;
  }
}
