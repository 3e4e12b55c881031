// wgrt::ChatSession (include/wgrt/llm.h): render the conversation with the chat template, tokenize, continue it
// with Llm::generate_tokens (the KV cache keeps the common prefix), keep the reply as the assistant message.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "text/chat_template.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt {

struct ChatSession::Impl {
  Llm* llm;
  ChatOptions opts;
  text::ChatTemplate tmpl;
  std::vector<ChatMessage> messages;
  int dropped = 0;

  Impl(Llm& l, ChatOptions o)
      : llm(&l), opts(with_template(l, std::move(o))), tmpl(opts.chat_template.source) {
    if (!opts.system.empty()) messages.push_back({"system", opts.system});
  }

  static ChatOptions with_template(const Llm& l, ChatOptions o) {
    if (o.chat_template.source.empty()) o.chat_template = resolve_chat_template(l, o.chat_template.name);
    return o;
  }

  std::string render() const {
    text::ChatTemplateInputs in;
    for (const ChatMessage& m : messages) in.messages.push_back({{"role", m.role}, {"content", m.content}});
    in.add_generation_prompt = true;
    in.bos_token = llm->special_tokens().bos_text;
    in.eos_token = llm->special_tokens().eos_text;
    return tmpl.apply(in);
  }

  std::vector<int32_t> tokens() const {
    const SpecialTokens& sp = llm->special_tokens();
    const std::string text = render();
    const bool has_bos = !sp.bos_text.empty() && text.starts_with(sp.bos_text);
    return llm->tokenize(text, sp.add_bos && sp.bos >= 0 && !has_bos);
  }

  // The prompt tokens, after dropping old exchanges (DropOldest) or taking back the last message (Error) when
  // they leave no room for a reply.
  std::vector<int32_t> fitting_tokens() {
    std::vector<int32_t> ids = tokens();
    const int ctx = llm->context();
    while (int(ids.size()) >= ctx) {
      size_t first = 0;
      while (first < messages.size() && messages[first].role == "system") ++first;
      // The oldest exchange: messages from `first` up to (not including) the next user message after it.
      size_t end = first + 1;
      while (end < messages.size() && messages[end].role != "user") ++end;
      if (opts.overflow == ContextOverflow::Error || end >= messages.size()) {
        const size_t n = ids.size();
        if (!messages.empty() && messages.back().role == "user") messages.pop_back();
        throw LimitError(fmt::format(
            "the conversation needs {} tokens with the reply prompt but the context holds {}: {}", n, ctx,
            opts.overflow == ContextOverflow::Error
                ? "start over, use a larger context (--ctx), or let old turns be dropped (--drop-old-turns)"
                : "the last message alone does not fit; use a larger context (--ctx) or a shorter message"));
      }
      dropped += int(end - first);
      messages.erase(messages.begin() + long(first), messages.begin() + long(end));
      ids = tokens();
    }
    return ids;
  }
};

ChatSession::ChatSession(Llm& llm, ChatOptions o) : impl_(std::make_unique<Impl>(llm, std::move(o))) {}
ChatSession::~ChatSession() = default;
ChatSession::ChatSession(ChatSession&&) noexcept = default;
ChatSession& ChatSession::operator=(ChatSession&&) noexcept = default;

GenerateStats ChatSession::say(std::string_view user, const GenerateOptions& g,
                               const std::function<void(std::string_view)>& on_text) {
  add("user", std::string(user));
  return reply(g, on_text);
}

GenerateStats ChatSession::reply(const GenerateOptions& g, const std::function<void(std::string_view)>& on_text) {
  std::vector<int32_t> ids = impl_->fitting_tokens();
  GenerateOptions go = g;
  for (const std::string& s : impl_->opts.chat_template.stop) go.stop.push_back(s);
  GenerateStats st = impl_->llm->generate_tokens(std::move(ids), go, on_text, /*reuse_cache=*/true);
  impl_->messages.push_back({"assistant", st.text});
  return st;
}

void ChatSession::add(std::string role, std::string content) { impl_->messages.push_back({std::move(role), std::move(content)}); }

void ChatSession::clear() {
  std::erase_if(impl_->messages, [](const ChatMessage& m) { return m.role != "system"; });
}

const std::vector<ChatMessage>& ChatSession::messages() const { return impl_->messages; }
std::string ChatSession::prompt_text() const { return impl_->render(); }
std::vector<int32_t> ChatSession::prompt_tokens() const { return impl_->tokens(); }

EvalResult ChatSession::prefill(bool want_logits) {
  std::vector<int32_t> ids = impl_->fitting_tokens();
  return impl_->llm->eval(ids, {.reuse_cache = true, .want_logits = want_logits});
}

const ChatTemplateSource& ChatSession::chat_template() const { return impl_->opts.chat_template; }
int ChatSession::dropped_messages() const { return impl_->dropped; }

}  // namespace wgrt
