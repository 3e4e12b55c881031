// ONNX model files (onnx.proto, ModelProto), read with Debian's libonnx-dev + libprotobuf (the generated
// onnx-ml.pb.h; no protobuf type leaks past onnx_file.cpp). Parsing only: this produces a format-neutral,
// validated description of the main graph; mapping nodes onto wgrt ops is models/onnx_graph/.
//
// What is checked here (each failure a FormatError naming the file, and the tensor/node at fault):
//   - the protobuf parses (corrupt or truncated bytes are refused), the file is at most 2 GiB (protobuf's
//     message limit; larger weights must be external data);
//   - every dim is >= 0 and the element count of every tensor fits 63 bits ("dims overflow");
//   - initializer and Constant-node payloads hold exactly dims-product elements (raw_data bytes or the typed
//     repeated fields); external data (location/offset/length, relative to the model's folder, no "..", no
//     absolute paths) exists and is long enough;
//   - the graph is acyclic and every node input is produced by an earlier node, an initializer or a graph
//     input (nodes are returned in a topological order; a cycle or a dangling input is refused naming it);
//   - opset imports: the default domain ("" or "ai.onnx") must be present.
// Tensor payloads keep their ONNX element type: `data` is little-endian bytes (typed repeated fields are
// packed into that form). Constant nodes (value, value_float(s), value_int(s)) become initializers named by
// their output and are not in `nodes`; sparse or string constants are refused (Unsupported).
// Thread-safety: the functions are pure; call from any thread.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wgrt::onnx {

// TensorProto.DataType codes (onnx.proto).
enum class ElemType : int32_t {
  Undefined = 0, Float = 1, Uint8 = 2, Int8 = 3, Uint16 = 4, Int16 = 5, Int32 = 6, Int64 = 7, String = 8,
  Bool = 9, Float16 = 10, Double = 11, Uint32 = 12, Uint64 = 13, Complex64 = 14, Complex128 = 15, Bfloat16 = 16,
};
// Bytes per element (0 for String/Undefined and unknown codes).
size_t elem_size(ElemType t);
std::string elem_name(ElemType t);  // "float", "int64", ... or "type 42"

// A tensor whose values are known on the host (initializer, Constant node attribute): `data` holds
// numel * elem_size bytes, little-endian, row-major.
struct Tensor {
  std::string name;
  ElemType type = ElemType::Undefined;
  std::vector<int64_t> dims;
  std::shared_ptr<const std::vector<uint8_t>> data;
  int64_t numel() const;
};

// One dim of a graph input/output: a fixed size, or a symbolic name (dim_param; may be empty = unknown).
struct Dim {
  int64_t value = -1;  // -1 when symbolic
  std::string param;
};
struct ValueInfo {
  std::string name;
  ElemType type = ElemType::Undefined;
  bool has_shape = false;
  std::vector<Dim> dims;
};

struct Attribute {
  enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph, Other } kind = Kind::Other;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::optional<Tensor> t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

struct Node {
  std::string name;     // may be empty
  std::string op_type;
  std::string domain;   // "" for the default domain
  std::vector<std::string> inputs;   // "" = an omitted optional input
  std::vector<std::string> outputs;  // "" = an omitted optional output
  std::map<std::string, Attribute> attrs;
  std::string label() const;  // "'name' (Op)" or "#index (Op)" when unnamed: for messages
  size_t index = 0;           // position in the file's node list
};

struct Model {
  std::string path;             // for messages; "" for in-memory bytes
  int64_t ir_version = 0;
  int64_t opset = 0;            // default-domain opset
  std::map<std::string, int64_t> opsets;  // every imported domain
  std::vector<ValueInfo> inputs;   // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::map<std::string, Tensor> initializers;
  std::vector<Node> nodes;      // topological order
};

// Reads a model file; external data files are looked up in the file's folder.
Model load_model(const std::string& path);
// Parses model bytes; external data (if any) relative to `base_dir` ("" = refuse external data).
Model parse_model(std::span<const uint8_t> bytes, const std::string& base_dir, const std::string& what);
// Decodes a TensorProto serialized as bytes (the ONNX test data's input_N.pb / output_N.pb files).
Tensor parse_tensor(std::span<const uint8_t> bytes, const std::string& what);

}  // namespace wgrt::onnx
