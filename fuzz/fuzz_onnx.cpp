// libFuzzer entry point for the ONNX importer: the ModelProto reader (src/formats/onnx) and, on models it
// accepts, the operator check and the lowering to a wgrt Graph (host folding included; no GPU), with every
// input at its declared dims (symbolic dims 3, each capped at 64, at most 4096 elements; non-float inputs zero).
// Build: cmake -DWGRT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run: ./fuzz_onnx ../tests/corpus/onnx
#include <cstddef>
#include <cstdint>
#include <map>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/onnx_graph.h"
#include "wgrt/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const wgrt::onnx::Model m = wgrt::onnx::parse_model({data, size}, "", "fuzz input");
    wgrt::onnx::check_operators(m);
    std::map<std::string, wgrt::onnx::HostTensor> in;
    for (const auto& v : m.inputs) {
      wgrt::onnx::HostTensor h;
      h.type = v.type;
      int64_t n = 1;
      for (const auto& d : v.dims) {
        const int64_t x = d.value < 0 ? 3 : std::min<int64_t>(d.value, 64);
        h.dims.push_back(x);
        n *= x;
      }
      if (n > 4096) return 0;
      if (!h.is_float()) h.i.assign(size_t(n), 0);
      else if (v.type != wgrt::onnx::ElemType::Float) return 0;
      in.emplace(v.name, std::move(h));
    }
    wgrt::onnx::build_onnx_graph(m, in);
  } catch (const wgrt::Error&) {
    // expected for malformed or unsupported input; anything else escapes and aborts (a finding)
  }
  return 0;
}
