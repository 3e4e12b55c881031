// wgrt's public ONNX API: load an ONNX model file, bind inputs, run it on the GPU, read the outputs.
//
//   auto m = wgrt::OnnxModel::load("det.onnx");
//   wgrt::OnnxTensor x{.name = "x", .dims = {1, 3, 640, 640}, .f32 = pixels};
//   std::vector<wgrt::OnnxTensor> out = m->run({x});   // out[0].dims, out[0].f32
//
// Files: ONNX ModelProto (onnx.proto, IR version any, default-domain opsets up to 17; weights inline or as
// external data files next to the model). The operators wgrt runs, with their limits, are listed in
// docs/ONNX.md (`wgrt ops --onnx` prints them); the ONNX backend node tests are the conformance reference
// (scripts/onnx_conformance.sh).
//
// Dims: symbolic (dim_param) input dims take the size of each run's input; one loaded model serves any
// number of input sizes (a graph is compiled per distinct set of input dims and cached, up to
// OnnxOptions::max_cached_graphs; weights are re-uploaded per compiled size). Values of non-float inputs
// (int64/int32/bool: indices, shapes, axes) are part of that key: they are folded on the host.
// Layouts: row-major (C order), as ONNX and NumPy. Element types: float32 on the GPU; integer and bool
// tensors only where their values can be computed on the host at compile time (shape computations).
// Precision: fp32 throughout; results match onnxruntime's CPU EP within ~1e-4 relative on the PP-OCRv4
// models (tests/models/onnx_ocr_models_test.cpp states the bounds).
//
// Errors (all wgrt::Error subclasses, one-line messages): FormatError (corrupt or truncated protobuf, a
// missing or short external data file, an initializer whose data disagrees with its dims, a graph cycle or
// dangling input, dims overflowing 64 bits), Unsupported (an operator, opset, element type or attribute value
// wgrt does not implement: at load time, naming the node, op and what is missing), InvalidArgument (run():
// missing/unknown/duplicate input names, wrong element type, wrong data length, dims that disagree with the
// model's fixed dims), LimitError (a tensor larger than the adapter's buffer limits), GpuError.
//
// Threads: an OnnxModel may be used from one thread at a time (run() is not reentrant; the object holds its
// own device or shares one, OnnxOptions::share_device). OnnxModels with their own devices may run
// concurrently on different threads; models that share a device must not run at the same time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wgrt {

// A host tensor. elem_type is the ONNX TensorProto.DataType code: 1 float (data in f32), 6 int32,
// 7 int64, 9 bool, 2/3/4/5/12/13 other integers (data in ints); other codes are refused.
struct OnnxTensor {
  std::string name;
  int32_t elem_type = 1;
  std::vector<int64_t> dims;
  std::vector<float> f32;
  std::vector<int64_t> ints;
};

// A model input or output as declared in the file: dims of -1 are symbolic (named by `dim_params`).
struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = 1;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_params;
};

struct OnnxOptions {
  std::string adapter;        // adapter spec (see `wgrt info --help`); empty: WGRT_ADAPTER or the best
  int max_cached_graphs = 8;  // compiled input-size variants kept (least recently used dropped)
  // Run on the same GPU device as this model (adapter is then ignored); the device lives as long as any model
  // using it. Models sharing a device must not run at the same time (see Threads above).
  const class OnnxModel* share_device = nullptr;
  bool profile = false;       // GPU timestamp profiling of each run (needs timestamp-query): profile_table()
};

struct OnnxRunStats {
  bool compiled = false;     // this run compiled a new graph (first time these input dims were seen)
  double compile_seconds = 0;
  double run_seconds = 0;    // upload + GPU execute + readback
  size_t dispatches = 0;
};

class OnnxModel {
 public:
  // Parses the file and checks every operator against what wgrt supports (throws as above); creates the
  // GPU device. Graphs are compiled at the first run() of each input-dims signature (or by prepare()).
  static std::unique_ptr<OnnxModel> load(const std::string& path, const OnnxOptions& options = {});
  virtual ~OnnxModel() = default;

  virtual const std::vector<OnnxValueInfo>& inputs() const = 0;
  virtual const std::vector<OnnxValueInfo>& outputs() const = 0;
  virtual int64_t opset() const = 0;

  // Compiles (and caches) the graph for these inputs without running it.
  virtual void prepare(const std::vector<OnnxTensor>& inputs) = 0;
  // Runs the model: `inputs` names every model input once (any order); returns every model output in the
  // file's order, float outputs as f32, integer/bool outputs (host-computed) as ints. Blocks until the GPU
  // has finished.
  virtual std::vector<OnnxTensor> run(const std::vector<OnnxTensor>& inputs, OnnxRunStats* stats = nullptr) = 0;
  // Per-kernel GPU time table of the last run (OnnxOptions::profile), or "" when profiling is off.
  virtual std::string profile_table() const = 0;
  // The adapter the model runs on (one line).
  virtual std::string adapter() const = 0;
};

}  // namespace wgrt
