#include "text/stop_strings.h"

#include <algorithm>

namespace wgrt::text {

StopMatcher::StopMatcher(std::vector<std::string> stops) {
  for (auto& s : stops)
    if (!s.empty()) stops_.push_back(std::move(s));
}

const std::string& StopMatcher::matched() const {
  static const std::string none;
  return found_ >= 0 ? stops_[size_t(found_)] : none;
}

std::string StopMatcher::push(std::string_view text) {
  if (found_ >= 0) return {};
  if (stops_.empty()) return std::string(text);
  held_ += text;
  // The occurrence that completes first (earliest end; ties: earliest start): what a stream sees first, so the
  // result does not depend on how the text was split.
  size_t cut = std::string::npos, end = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    size_t at = held_.find(stops_[i]);
    if (at == std::string::npos) continue;
    size_t e = at + stops_[i].size();
    if (e < end || (e == end && at < cut)) {
      cut = at;
      end = e;
      found_ = int(i);
    }
  }
  if (cut != std::string::npos) {
    std::string out = held_.substr(0, cut);
    held_.clear();
    return out;
  }
  // Hold back the longest tail that is a proper prefix of a stop string.
  size_t keep = 0;
  for (const auto& s : stops_) {
    for (size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
      if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
    }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopMatcher::flush() {
  std::string out;
  out.swap(held_);
  return found_ >= 0 ? std::string() : out;
}

}  // namespace wgrt::text
