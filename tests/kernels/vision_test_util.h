// Helpers for the vision op tests: one-node graphs fed from host vectors, and the PyTorch goldens written by
// tests/golden/make_goldens_vision.py (JSON under tests/golden/vision/; "-inf" strings stand for -infinity).
#pragma once
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops_a_test_util.h"
#include "webgpu/device.h"
#include "support/paths.h"

namespace wgrt::test {

inline nlohmann::json vision_golden(const std::string& file) {
  std::ifstream f(source_path("tests/golden/vision/" + file));
  if (!f) throw InvalidArgument("cannot open tests/golden/vision/" + file);
  return nlohmann::json::parse(f);
}

inline std::vector<float> jfloats(const nlohmann::json& j) {
  std::vector<float> v;
  v.reserve(j.size());
  for (const auto& e : j) v.push_back(e.is_string() ? -std::numeric_limits<float>::infinity() : e.get<float>());
  return v;
}

inline Dims jdims(const nlohmann::json& j) { return j.get<Dims>(); }

// A graph with one op node: inputs are fed from host vectors on every run.
struct OneOp {
  Graph g;
  std::vector<std::pair<ValueId, Dims>> input_dims;
  std::vector<std::vector<float>> input_data;
  std::unique_ptr<ExecutableGraph> exe;
  ValueId out = -1;

  ValueId input(Dims d, std::vector<float> v) {
    ValueId id = g.input("in" + std::to_string(input_dims.size()), DType::F32, d);
    input_dims.push_back({id, d});
    input_data.push_back(std::move(v));
    return id;
  }
  ValueId constant(Dims d, std::vector<float> v) {
    return g.constant("c" + std::to_string(g.values().size()), DType::F32, d, ConstantData::from_vector(std::move(v)));
  }
  // Adds the node (out appended as the last argument) and builds; out's dims are inferred unless given.
  void build(const std::string& op, std::vector<ValueId> args, Dims out_max = {}, DType out_type = DType::F32) {
    out = out_max.empty() ? g.tensor_like(out_type, "out") : g.tensor(out_type, out_max, "out");
    args.push_back(out);
    g.op(op, args, "op");
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), gpu());
  }
  std::vector<float> run() {
    for (size_t i = 0; i < input_dims.size(); ++i)
      exe->set_input(input_dims[i].first, input_dims[i].second, std::span<const float>(input_data[i]));
    exe->execute();
    if (exe->graph().tensor_at(out).dtype != DType::F32) return {};  // read it with exe->read_i32
    return exe->read_f32(out);
  }
  // A one-input op: runs with input 0 at live dims d holding x (row-major f32, numel(d) values).
  std::vector<float> run(Dims d, std::vector<float> x) {
    input_dims[0].second = std::move(d);
    input_data[0] = std::move(x);
    return run();
  }
  Dims out_dims() const { return exe->dims(out); }
};

// Runs body once under each GEMM kernel the adapter has (the tiled kernel; the CPU-adapter kernel at two shapes
// where supported), forced through the tuning policy, with the kernel named in the trace.
inline void for_each_gemm_kernel(const std::function<void()>& body) {
  std::vector<webgpu::GemmTuning> kernels = {{webgpu::GemmTuning::Kind::Tiled, 4, 64}};
  if (gpu().tuning().gemm_cpu_supported)
    kernels.insert(kernels.end(), {{webgpu::GemmTuning::Kind::Cpu, 4, 64}, {webgpu::GemmTuning::Kind::Cpu, 1, 8}});
  for (const webgpu::GemmTuning& k : kernels) {
    webgpu::Tuning t = gpu().tuning();
    t.gemm = k;
    webgpu::ScopedTuning scoped(gpu(), t);
    SCOPED_TRACE(fmt::format("gemm kind {} rq {} wg {}", int(k.kind), k.rq, k.wg));
    body();
  }
}

}  // namespace wgrt::test
