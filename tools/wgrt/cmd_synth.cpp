// `wgrt synth`: write a random-weight GGUF with the exact architecture shape of a known model (see
// src/models/synth.h), for benchmarks without downloading weights.
#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "models/synth.h"
#include "wgrt/error.h"

namespace wgrt::cli {

namespace {
struct SynthOpts {
  std::string preset, type = "q4_0", out, chat_template, eot;
  std::vector<std::string> control;
  uint64_t seed = 0;
  float init_std = 0;
};
GgmlType parse_type(const std::string& t) {
  if (t == "q4_0") return GgmlType::Q4_0;
  if (t == "q8_0") return GgmlType::Q8_0;
  if (t == "f16") return GgmlType::F16;
  if (t == "f32") return GgmlType::F32;
  throw InvalidArgument("synth: --type must be q4_0, q8_0, f16 or f32, not '" + t + "'");
}
}  // namespace

void add_synth(CLI::App& app) {
  auto* cmd = app.add_subcommand("synth", "Write a random-weight GGUF with the shape of a known model");
  auto o = std::make_shared<SynthOpts>();
  std::string names;
  for (const auto& p : models::synth_presets()) names += (names.empty() ? "" : ", ") + p.name;
  cmd->add_option("--preset", o->preset, "Architecture shape: " + names)->required();
  cmd->add_option("--type", o->type, "Weight type of the matrices and token embedding: q4_0, q8_0, f16, f32");
  cmd->add_option("--seed", o->seed, "Random seed, >= 0 (same seed, same file)")->check(seed_check());
  cmd->add_option("-o,--output", o->out, "Output .gguf file")->required();
  cmd->add_option("--init-std", o->init_std, "Std of the random weights (default: the preset's, 0.02); 0.2 gives varied greedy text")
      ->check(real_check(0, 10, true, "a number in (0, 10]"));
  cmd->add_option("--chat-template", o->chat_template, "Embed this Jinja file as tokenizer.chat_template")
      ->check(CLI::ExistingFile);
  cmd->add_option("--control-token", o->control, "Add a special (control) token at the end of the vocabulary (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--eot-token", o->eot, "One of the --control-token texts, recorded as tokenizer.ggml.eot_token_id");
  cmd->callback([o] {
    models::SynthConfig c = models::synth_preset(o->preset);
    if (o->init_std > 0) c.init_std = o->init_std;
    if (!o->chat_template.empty()) c.chat_template = read_text_file(o->chat_template, false);
    if (!o->control.empty()) c.control_tokens = o->control;  // else the preset's (phi-3 has its own)
    if (!o->control.empty() || !o->eot.empty()) c.eot_token = o->eot;
    auto t0 = std::chrono::steady_clock::now();
    models::synth_gguf(c, parse_type(o->type), o->seed).write(o->out);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("wrote {}: {} {} ({:.1f} M parameters, seed {}) in {:.1f} s\n", o->out, c.name, o->type,
               double(models::synth_param_count(c)) / 1e6, o->seed, s);
  });
}

}  // namespace wgrt::cli
