// et_vk.sdpa.default (non-causal encoder / cross attention): route and scratch controls for tests and
// benchmarks. See sdpa_encoder.cpp for the op's schema and routes.
#pragma once
#include <cstdint>

namespace wgrt::ops {

enum class SdpaEncoderRoute { Auto, Gemm, Split };

// Route used by graphs built afterwards (read at build; Auto picks per execute, see sdpa_encoder.cpp).
void set_sdpa_encoder_route(SdpaEncoderRoute r);
SdpaEncoderRoute sdpa_encoder_route();

// Bound on the GEMM route's score scratch (B*H*rows*Skv*4 bytes); longer sequences are processed in chunks of
// query rows that fit it. Default kSdpaEncoderScoreBytes (64 MiB), also capped at maxStorageBufferBindingSize.
// Read at build.
constexpr uint64_t kSdpaEncoderScoreBytes = uint64_t(64) << 20;
void set_sdpa_encoder_score_bytes(uint64_t bytes);
uint64_t sdpa_encoder_score_bytes();

// Auto route: the split-K route serves B*H*Sq <= kSdpaSplitMaxRows query rows over Skv >= kSdpaSplitMinKeys.
constexpr int64_t kSdpaSplitMaxRows = 512;
constexpr int64_t kSdpaSplitMinKeys = 1024;
constexpr int64_t kSdpaSplitKeys = 256;  // keys per split-K workgroup (fixed by the kernel)

}  // namespace wgrt::ops
