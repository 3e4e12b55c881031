// Stop strings on streamed text: generation stops when the decoded output contains one of a set of strings,
// wherever the token boundaries fall (a stop string may span several tokens, or start in the middle of one).
//
// push() is given the text as it streams (any split) and returns what is safe to show now: everything up to
// the start of the first stop-string occurrence to complete (earliest end, ties: earliest start; so the result
// does not depend on the split; found() is then true and the rest is dropped), minus a held-back tail
// that is a proper prefix of some stop string (it may still complete). flush() releases the held-back tail
// when the stream ends without a match. Matching is on bytes (exact, case-sensitive); empty stop strings are
// ignored. With no stop strings push() returns its input unchanged and holds nothing back.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::text {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops = {});

  // Adds text; returns the part of the output that is now final. After a match returns "" forever.
  std::string push(std::string_view text);
  // Ends the stream: returns the held-back tail ("" after a match).
  std::string flush();

  bool found() const { return found_ >= 0; }
  // The stop string that matched ("" when none).
  const std::string& matched() const;
  // Bytes held back now.
  size_t pending() const { return held_.size(); }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  int found_ = -1;
};

}  // namespace wgrt::text
