// `wgrt synth`: write a random-weight GGUF with the exact architecture shape of a known model (see
// src/models/synth.h), for benchmarks without downloading weights.
#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "commands.h"
#include "models/synth.h"
#include "wgrt/error.h"

namespace wgrt::cli {

namespace {
struct SynthOpts {
  std::string preset, type = "q4_0", out;
  uint64_t seed = 0;
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
  cmd->callback([o] {
    const auto& c = models::synth_preset(o->preset);
    auto t0 = std::chrono::steady_clock::now();
    models::synth_gguf(c, parse_type(o->type), o->seed).write(o->out);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("wrote {}: {} {} ({:.1f} M parameters, seed {}) in {:.1f} s\n", o->out, c.name, o->type,
               double(models::synth_param_count(c)) / 1e6, o->seed, s);
  });
}

}  // namespace wgrt::cli
