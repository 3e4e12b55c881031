#include "support/paths.h"

namespace wgrt::test {
std::string shared_path(const std::string& rel) { return std::string(WGRT_SHARED_DIR) + "/" + rel; }
std::string source_path(const std::string& rel) { return std::string(WGRT_SOURCE_DIR) + "/" + rel; }
}  // namespace wgrt::test
