// Chat-template conformance: wgrt's Jinja2 interpreter against Python jinja2 (driven like HF's
// apply_chat_template) on llama.cpp's 68 real templates x 14 conversations. The cases and goldens are made
// at test time by the chat_templates_setup fixture (tests/golden/chat_templates_setup.sh). A case passes when
// jinja2 rendered it and wgrt renders the same bytes; or jinja2's raise_exception fired and wgrt throws
// InvalidArgument with the same message; or jinja2 failed otherwise and wgrt throws a wgrt::Error.
// Required: 100% for the templates of the architectures wgrt runs (kRequired), 95% over all cases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "text/chat_template.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

const std::string kDir = WGRT_CHAT_TEMPLATE_CASES;

// Templates of models wgrt runs (llama 2/3 and fine-tunes on it, qwen2, qwen3, mistral, smollm, gemma, phi).
const std::set<std::string> kRequired = {
    "meta-llama-Llama-3.1-8B-Instruct.jinja",       "meta-llama-Llama-3.2-3B-Instruct.jinja",
    "meta-llama-Llama-3.3-70B-Instruct.jinja",      "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
    "fireworks-ai-llama-3-firefunction-v2.jinja",   "Qwen-Qwen2.5-7B-Instruct.jinja",
    "Qwen-QwQ-32B.jinja",                           "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    "Qwen-Qwen3-0.6B.jinja",                        "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    "unsloth-mistral-Devstral-Small-2507.jinja",    "Mistral-Small-3.2-24B-Instruct-2506.jinja",
    "HuggingFaceTB-SmolLM3-3B.jinja",               "google-gemma-2-2b-it.jinja",
    "microsoft-Phi-3.5-mini-instruct.jinja"};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string excerpt(const std::string& s, size_t at) {
  const size_t b = at > 60 ? at - 60 : 0;
  std::string e = s.substr(b, 120);
  for (char& c : e)
    if (c == '\n') c = '~';
  return e;
}

// "" when the case passes, else why not.
std::string check(const nlohmann::json& c, const nlohmann::json& m, std::map<std::string, std::string>& parse_errors,
                  std::map<std::string, std::shared_ptr<text::ChatTemplate>>& cache) {
  const std::string name = c["template"];
  const std::string expect = c["expect"];
  text::ChatTemplateInputs in;
  in.messages = nlohmann::ordered_json::parse(slurp(kDir + "/" + c["messages"].get<std::string>()));
  if (!c["tools"].is_null()) in.tools = nlohmann::ordered_json::parse(slurp(kDir + "/" + c["tools"].get<std::string>()));
  in.add_generation_prompt = c["add_generation_prompt"];
  in.extra = c["vars"];
  in.bos_token = m["bos_token"];
  in.eos_token = m["eos_token"];
  std::string got, err;
  bool raised = false, failed = false;
  try {
    if (!cache.count(name) && !parse_errors.count(name)) {
      try {
        cache[name] = std::make_shared<text::ChatTemplate>(slurp(kDir + "/models/templates/" + name));
      } catch (const Error& e) {
        parse_errors[name] = e.what();
      }
    }
    if (parse_errors.count(name)) throw FormatError(parse_errors[name]);
    got = cache[name]->apply(in);
  } catch (const InvalidArgument& e) {
    raised = true, err = e.what();
  } catch (const Error& e) {
    failed = true, err = e.what();
  } catch (const std::exception& e) {
    return std::string("non-wgrt exception: ") + e.what();
  }
  if (expect == "ok") {
    if (raised || failed) return "wgrt failed where jinja2 rendered: " + err;
    const std::string want = slurp(kDir + "/" + c["output"].get<std::string>());
    if (got == want) return "";
    size_t at = 0;
    while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
    return "output differs at byte " + std::to_string(at) + " (got " + std::to_string(got.size()) + ", want " +
           std::to_string(want.size()) + " bytes)\n      got:  " + excerpt(got, at) + "\n      want: " + excerpt(want, at);
  }
  if (expect == "raise") {
    if (!raised) return "jinja2 raised '" + c["message"].get<std::string>() + "', wgrt " + (failed ? "failed: " + err : "rendered");
    return err == c["message"].get<std::string>() ? "" : "raise_exception message differs: '" + err + "'";
  }
  if (raised || failed) return "";
  return "jinja2 failed (" + c["message"].get<std::string>() + "), wgrt rendered";
}

TEST(ChatTemplateConformance, MatchesJinja2OnLlamaCppTemplates) {
  const nlohmann::json m = nlohmann::json::parse(slurp(kDir + "/manifest.json"));
  setenv("WGRT_TEMPLATE_NOW", m["now"].get<std::string>().c_str(), 1);
  std::map<std::string, std::pair<int, int>> per;  // template -> (passed, total)
  std::map<std::string, std::string> parse_errors;
  std::map<std::string, std::shared_ptr<text::ChatTemplate>> cache;
  int pass = 0, total = 0, req_pass = 0, req_total = 0, shown = 0;
  std::set<std::string> seen;
  for (const auto& c : m["cases"]) {
    const std::string name = c["template"];
    seen.insert(name);
    const std::string why = check(c, m, parse_errors, cache);
    auto& [p, t] = per[name];
    ++t, ++total;
    const bool req = kRequired.count(name) != 0;
    req_total += req;
    if (why.empty()) {
      ++p, ++pass, req_pass += req;
    } else if (req || shown++ < 60) {
      std::printf("  FAIL %s / %s: %s\n", name.c_str(), c["case"].get<std::string>().c_str(), why.c_str());
    }
  }
  for (const auto& [name, pt] : per)
    std::printf("  %-58s %2d/%2d%s\n", name.c_str(), pt.first, pt.second, kRequired.count(name) ? "  (required)" : "");
  std::printf("chat template conformance: %d/%d cases pass (%.1f%%) over %zu templates; required templates %d/%d\n",
              pass, total, 100.0 * pass / std::max(total, 1), per.size(), req_pass, req_total);
  for (const auto& r : kRequired) EXPECT_TRUE(seen.count(r)) << "required template missing from the suite: " << r;
  EXPECT_GE(total, 600);
  EXPECT_EQ(req_pass, req_total);
  EXPECT_GE(pass * 100, total * 95);
}

}  // namespace
}  // namespace wgrt
