// wgrt error types. Every failure the engine can report is one of these exceptions; messages are one line,
// name the object at fault (file, tensor, node, op, limit) and never require a debugger to understand.
#pragma once
#include <stdexcept>
#include <string>

namespace wgrt {

// Base of all wgrt errors.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A model, tokenizer or other input file is missing, truncated, corrupt or of an unsupported kind.
class FormatError : public Error {
 public:
  using Error::Error;
};

// A caller passed a bad argument: wrong shape, dtype or rank, value out of range, unknown name.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// The request is valid but this build does not implement it (e.g. a GGUF tensor type, an architecture).
class Unsupported : public Error {
 public:
  using Error::Error;
};

// The WebGPU layer failed: no adapter, device lost, validation or WGSL compile error, timeout.
class GpuError : public Error {
 public:
  using Error::Error;
};

// A computation produced NaN or infinite values where finite ones are required (e.g. a model's logits):
// usually damaged weights (see LlmOptions::check_weights).
class NumericError : public Error {
 public:
  using Error::Error;
};

// A size exceeds a device limit (maxBufferSize, maxStorageBufferBindingSize, ...) or the context window.
class LimitError : public Error {
 public:
  using Error::Error;
};

}  // namespace wgrt
