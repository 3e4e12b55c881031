// ggml tensor type ids as stored in GGUF tensor infos (ggml/include/ggml.h enum ggml_type), with block
// geometry (elements per block, bytes per block) so that any known type's data extent can be validated even
// when wgrt cannot decode it. ggml_type_decodable() says which ones it decodes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace wgrt {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
  I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30, TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
};

struct GgmlTypeTraits {
  const char* name;
  uint32_t block_elems;  // elements per block (1 for plain types)
  uint32_t block_bytes;  // bytes per block
};

// Traits of a type id, or nullopt for an id this table does not know (removed or future types).
std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t id);
// "Q4_K", or "type#<id>" for unknown ids.
std::string ggml_type_name(GgmlType t);
// True for the types wgrt can dequantize (dequantize() in ggml_quant.h): F32, F16, BF16, Q4_0, Q4_1, Q5_0,
// Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4. Defined in ggml_quant.cpp.
bool ggml_type_decodable(GgmlType t);

}  // namespace wgrt
