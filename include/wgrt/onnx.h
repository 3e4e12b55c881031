// wgrt's public ONNX API: load an ONNX model file, bind inputs, run it on the GPU, read the outputs.
//
//   auto m = wgrt::OnnxModel::load("det.onnx");
//   wgrt::OnnxTensor x{.name = "x", .dims = {1, 3, 640, 640}, .f32 = pixels};
//   std::vector<wgrt::OnnxTensor> out = m->run({x});   // out[0].dims, out[0].f32
//
// Files: ONNX ModelProto (onnx.proto, IR version any, default-domain opsets up to 18; weights inline or as
// external data files next to the model). The operators wgrt runs, with their limits, are listed in
// docs/ONNX.md (`wgrt ops --onnx` prints them); the ONNX backend node tests are the conformance reference
// (scripts/onnx_conformance.sh).
//
// Dims: symbolic (dim_param) input dims take the size of each run's input; one loaded model serves any
// number of input sizes. Two ways (docs/ONNX.md, "Symbolic dims"):
//   - bounded (OnnxOptions::dim_bounds / bound_dims give a max for every symbolic dim of the float inputs):
//     one graph is built at the max dims, weights uploaded once, and every run within the bounds executes on
//     it: the importer re-lowers the model on the host at the run's dims (once per distinct dims) and the
//     graph's resize hooks set the live dims, with the sizes that vary carried as SymInts. Where the lowering
//     at some dims differs from the max one in a way the runtime cannot follow (a size-dependent constant, an
//     op chosen by size, ...), those dims get a graph of their own (OnnxRunStats::own_graph_reason says why).
//     A run above a bound is an InvalidArgument naming the input, dim and bound (or, with
//     OnnxOptions::above_bounds_compile, compiles a graph for its size);
//   - unbounded: a graph is compiled per distinct set of input dims and cached, up to
//     OnnxOptions::max_cached_graphs; weights are uploaded per compiled size.
// Values of non-float inputs (int64/int32/bool: indices, shapes, axes) are folded on the host.
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
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wgrt {

// A host tensor. elem_type is the ONNX TensorProto.DataType code: 1 float (data in f32), 6 int32,
// 7 int64, 9 bool, 2/3/4/5/12/13 other integers (data in ints); other codes are refused.
// `gpu`, when set, holds a float32 tensor's data on the GPU instead of in f32 (run_gpu's outputs): it can be
// bound as an input of any model on the same device (OnnxOptions::share_device), or of the same model again,
// with no host round trip, and read with OnnxModel::read. It stays valid while any holder keeps it (the buffer
// keeps its device alive); later runs do not overwrite it.
struct OnnxGpuData;
struct OnnxTensor {
  std::string name;
  int32_t elem_type = 1;
  std::vector<int64_t> dims;
  std::vector<float> f32;
  std::vector<int64_t> ints;
  std::shared_ptr<const OnnxGpuData> gpu;
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
  // Upper bounds of symbolic input dims by dim_param name, e.g. {{"W", 1280}} (see Dims above; >= 1 each).
  std::map<std::string, int64_t> dim_bounds;
  bool above_bounds_compile = false;  // a run above a bound compiles a graph of its own instead of failing
  // Lower the decomposed LayerNorm exporters emit (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div [, Mul,
  // Add]) as one norm op (docs/ONNX.md); false runs the nodes one by one.
  bool fuse_layernorm = true;
};

struct OnnxRunStats {
  bool compiled = false;     // this run compiled a new graph (first time these input dims were seen)
  double compile_seconds = 0;
  double run_seconds = 0;    // upload + GPU execute + readback
  size_t dispatches = 0;
  bool shared_graph = false;    // ran on the one graph built at the bounded max dims
  std::string own_graph_reason; // bounded model, own graph for these dims: why (a mismatch or "above the bounds")
};

// Totals since load (or since bound_dims).
struct OnnxModelCounters {
  size_t graphs_built = 0;             // executables built (each uploads the weights)
  uint64_t weight_bytes_uploaded = 0;  // constant bytes written to the GPU by those builds
  size_t host_lowerings = 0;           // host-only lowerings of the model (one per distinct input dims)
  size_t runs = 0, shared_graph_runs = 0;
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
  // As run(), but float outputs computed on the GPU stay there: returned with `gpu` set (f32 empty), each a
  // copy in its own buffer (so it survives later runs). Inputs may be host or GPU tensors (gpu set: dims and
  // name as for host ones; on another device: InvalidArgument naming the input). Does not wait for the GPU.
  virtual std::vector<OnnxTensor> run_gpu(const std::vector<OnnxTensor>& inputs, OnnxRunStats* stats = nullptr) = 0;
  // The data of a tensor: f32 as is for host tensors, a read-back (waits for the GPU) for GPU ones.
  virtual std::vector<float> read(const OnnxTensor& t) const = 0;
  // Replaces the dim bounds (OnnxOptions::dim_bounds); drops every compiled graph. InvalidArgument for a
  // bound < 1 or a name that is no symbolic dim of the model's inputs.
  virtual void bound_dims(const std::map<std::string, int64_t>& bounds) = 0;
  virtual OnnxModelCounters counters() const = 0;
  // Per-kernel GPU time table of the last run (OnnxOptions::profile), or "" when profiling is off.
  virtual std::string profile_table() const = 0;
  // The adapter the model runs on (one line).
  virtual std::string adapter() const = 0;
};

}  // namespace wgrt
