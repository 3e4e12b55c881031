// `wgrt run MODEL.onnx --input NAME=FILE.npy ... [--output-dir D]`: runs an ONNX model on the GPU and writes
// each output as D/<output name>.npy, with one summary line per output and a timing line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <filesystem>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "formats/npy.h"
#include "util/printable.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace wgrt::cli {

namespace {

struct RunOpts {
  std::string model, out_dir, adapter;
  std::vector<std::string> inputs;
  int repeat = 1;
  bool profile = false;
};

// A file-name-safe version of an ONNX value name.
std::string file_name(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s + ".npy";
}

}  // namespace

void add_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run an ONNX model on .npy inputs and write its outputs as .npy");
  auto o = std::make_shared<RunOpts>();
  cmd->add_option("model", o->model, "ONNX model file (.onnx)")->required();
  cmd->add_option("-i,--input", o->inputs, "Model input as NAME=FILE.npy (repeat for each input)")->allow_extra_args(false);
  cmd->add_option("-o,--output-dir", o->out_dir, "Folder for the outputs (NAME.npy each; created if missing); none: print summaries only");
  cmd->add_option("--adapter", o->adapter, "Adapter spec (see wgrt info --help)");
  cmd->add_option("--repeat", o->repeat, "Run this many times (timing: the last run is reported)")->check(CLI::Range(1, 100000));
  cmd->add_flag("--profile", o->profile, "Print the per-kernel GPU time of the last run (needs timestamp-query)");
  cmd->callback([o] {
    OnnxOptions opts;
    opts.adapter = o->adapter;
    opts.profile = o->profile;
    auto m = OnnxModel::load(o->model, opts);
    std::vector<OnnxTensor> in;
    for (const auto& spec : o->inputs) {
      const size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        throw InvalidArgument(fmt::format("--input '{}' must be NAME=FILE.npy", printable(spec)));
      OnnxTensor t;
      t.name = spec.substr(0, eq);
      int32_t want = -1;
      for (const auto& v : m->inputs())
        if (v.name == t.name) want = v.elem_type;
      if (want < 0) {
        std::string names;
        for (const auto& v : m->inputs()) names += (names.empty() ? "" : ", ") + printable(v.name);
        throw InvalidArgument(fmt::format("--input '{}': the model has no input of that name (inputs: {})", printable(t.name), names));
      }
      NpyArray a = read_npy(spec.substr(eq + 1));
      t.dims = a.dims;
      if (a.kind == NpyArray::Kind::Float) {
        if (want != 1) throw InvalidArgument(fmt::format("--input '{}': the file holds floats; the model input is not float", printable(t.name)));
        t.f32 = std::move(a.f32);
      } else {
        if (want == 1) throw InvalidArgument(fmt::format("--input '{}': the file holds integers; the model input is float (save it as float32)", printable(t.name)));
        t.ints = std::move(a.ints);
      }
      t.elem_type = want;
      in.push_back(std::move(t));
    }
    OnnxRunStats st;
    std::vector<OnnxTensor> out;
    for (int r = 0; r < o->repeat; ++r) out = m->run(in, &st);
    if (!o->out_dir.empty()) std::filesystem::create_directories(o->out_dir);
    for (const auto& t : out) {
      NpyArray a;
      a.dims = t.dims;
      std::string stats;
      if (t.elem_type == 1) {
        a.kind = NpyArray::Kind::Float;
        a.f32 = t.f32;
        double lo = 0, hi = 0, sum = 0;
        for (size_t k = 0; k < t.f32.size(); ++k) {
          const double v = t.f32[k];
          lo = k ? std::min(lo, v) : v;
          hi = k ? std::max(hi, v) : v;
          sum += v;
        }
        stats = fmt::format("min {:.6g} max {:.6g} mean {:.6g}", lo, hi, t.f32.empty() ? 0.0 : sum / double(t.f32.size()));
      } else {
        a.kind = t.elem_type == 9 ? NpyArray::Kind::Bool : NpyArray::Kind::Int;
        a.ints = t.ints;
        stats = fmt::format("{} integers", t.ints.size());
      }
      std::string where;
      if (!o->out_dir.empty()) {
        const std::string path = (std::filesystem::path(o->out_dir) / file_name(t.name)).string();
        write_npy(path, a);
        where = " -> " + path;
      }
      write_out(fmt::format("output {} [{}] {}{}\n", printable(t.name), fmt::join(t.dims, ", "), stats, where));
    }
    write_out(fmt::format("ran {} ({} outputs) on {}: {:.2f} ms{}, {} dispatches\n", printable(o->model), out.size(), m->adapter(),
                          st.run_seconds * 1e3, st.compiled ? fmt::format(" (+{:.0f} ms compile)", st.compile_seconds * 1e3) : "",
                          st.dispatches));
    if (o->profile) write_out(m->profile_table());
    finish_out();
  });
}

}  // namespace wgrt::cli
