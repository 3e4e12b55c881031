// ChatTemplate: parses once, renders with HF's context (see chat_template.h).
#include "text/chat_template.h"

#include <cstdlib>
#include <ctime>

#include "text/jinja/eval.h"
#include "text/jinja/parser.h"

namespace wgrt::text {
namespace {

using jinja::Args;
using jinja::Kind;
using jinja::RenderError;
using jinja::Value;

constexpr size_t kMaxSource = size_t(1) << 20;

Value from_json(const nlohmann::ordered_json& j) {
  using vt = nlohmann::ordered_json::value_t;
  switch (j.type()) {
    case vt::null: return Value::none();
    case vt::boolean: return Value::boolean(j.get<bool>());
    case vt::number_integer: return Value::integer(j.get<int64_t>());
    case vt::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      return u > uint64_t(INT64_MAX) ? Value::real(double(u)) : Value::integer(int64_t(u));
    }
    case vt::number_float: return Value::real(j.get<double>());
    case vt::string: return Value::str(j.get<std::string>());
    case vt::array: {
      jinja::List l;
      for (const auto& x : j) l.push_back(from_json(x));
      return Value::make_list(std::move(l));
    }
    case vt::object: {
      Value d = Value::make_dict();
      for (auto it = j.begin(); it != j.end(); ++it) d.dict->items.emplace_back(Value::str(it.key()), from_json(it.value()));
      return d;
    }
    default: throw InvalidArgument("chat template input: binary JSON values are not supported");
  }
}

int64_t int_arg(const Value& v) {
  if (v.kind == Kind::Int) return v.i;
  if (v.kind == Kind::Bool) return v.b;
  throw RenderError(std::string("range() needs integers, not '") + jinja::type_name(v) + "'");
}

Value range(Args& a) {
  if (a.pos.empty() || a.pos.size() > 3 || !a.kw.empty()) throw RenderError("range() takes 1 to 3 integers");
  int64_t start = 0, stop, step = 1;
  if (a.pos.size() == 1) stop = int_arg(a.pos[0]);
  else start = int_arg(a.pos[0]), stop = int_arg(a.pos[1]);
  if (a.pos.size() == 3) step = int_arg(a.pos[2]);
  if (step == 0) throw RenderError("range() arg 3 must not be zero");
  const __int128 n = step > 0 ? (__int128(stop) - start + step - 1) / step : (__int128(start) - stop - step - 1) / -step;
  if (n > 100000) throw RenderError("range too big: the sandbox allows at most 100000 items");  // jinja2 MAX_RANGE
  jinja::List l;
  for (int64_t k = 0; k < int64_t(n); ++k) l.push_back(Value::integer(start + k * step));
  return Value::make_list(std::move(l));
}

Value make_mapping(Args& a, bool ns) {
  Value d = ns ? Value::make_namespace() : Value::make_dict();
  if (a.pos.size() > 1) throw RenderError("namespace()/dict() take at most one positional argument");
  if (!a.pos.empty()) {
    if (a.pos[0].kind != Kind::Dict) throw RenderError("namespace()/dict(): the positional argument must be a mapping");
    d.dict->items = a.pos[0].dict->items;
  }
  for (auto& [k, v] : a.kw) d.dict->set(Value::str(k), v);
  return d;
}

Value strftime_now(Args& a) {
  if (a.pos.size() != 1 || !a.pos[0].is_string()) throw RenderError("strftime_now() takes one format string");
  std::tm tm{};
  if (const char* fixed = std::getenv("WGRT_TEMPLATE_NOW")) {
    if (std::sscanf(fixed, "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                    &tm.tm_sec) != 6)
      throw RenderError("WGRT_TEMPLATE_NOW must look like 2024-07-26 12:34:56");
    tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_isdst = -1;
    std::time_t t = timegm(&tm);  // normalizes and fills the weekday / day of the year
    gmtime_r(&t, &tm);
  } else {
    std::time_t t = std::time(nullptr);
    localtime_r(&t, &tm);
  }
  const std::string& fmt = a.pos[0].s;
  std::string out(fmt.size() * 8 + 64, '\0');
  size_t n = fmt.empty() ? 0 : std::strftime(out.data(), out.size(), fmt.c_str(), &tm);
  if (n == 0 && !fmt.empty()) throw RenderError("strftime_now(): the formatted date is too long");
  out.resize(n);
  return Value::str(std::move(out));
}

}  // namespace

struct ChatTemplate::Impl {
  jinja::Body body;
};

ChatTemplate::ChatTemplate(std::string_view source) : impl_(std::make_unique<Impl>()) {
  if (source.size() > kMaxSource)
    throw FormatError("chat template is " + std::to_string(source.size()) + " bytes, over the 1 MiB bound");
  impl_->body = jinja::parse(jinja::lex(source));
}
ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::apply(const ChatTemplateInputs& in) const {
  std::map<std::string, Value> g;
  g["range"] = Value::function("range", range);
  g["namespace"] = Value::function("namespace", [](Args& a) { return make_mapping(a, true); });
  g["dict"] = Value::function("dict", [](Args& a) { return make_mapping(a, false); });
  g["raise_exception"] = Value::function("raise_exception", [](Args& a) -> Value {
    throw jinja::RaisedError(a.pos.empty() ? std::string() : jinja::to_str(a.pos[0]));
  });
  g["strftime_now"] = Value::function("strftime_now", strftime_now);
  g["messages"] = from_json(in.messages);
  g["tools"] = from_json(in.tools);
  g["documents"] = Value::none();
  g["add_generation_prompt"] = Value::boolean(in.add_generation_prompt);
  g["bos_token"] = Value::str(in.bos_token);
  g["eos_token"] = Value::str(in.eos_token);
  if (!in.extra.is_null()) {
    if (!in.extra.is_object()) throw InvalidArgument("chat template input: 'extra' must be a JSON object");
    for (auto it = in.extra.begin(); it != in.extra.end(); ++it) g[it.key()] = from_json(it.value());
  }
  int line = 0;
  try {
    return jinja::render(impl_->body, g, jinja::Limits{}, &line);
  } catch (const jinja::RaisedError& e) {
    throw InvalidArgument(e.what());
  } catch (const jinja::RenderError& e) {
    throw FormatError("chat template line " + std::to_string(line) + ": " + e.what());
  }
}

}  // namespace wgrt::text
