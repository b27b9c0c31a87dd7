// Args: one option parser for every subcommand.
#include "cli/args.hpp"

#include <charconv>
#include <cmath>

namespace actorscope::cli {

Args::Args(std::string command, std::vector<std::string> args) : command_(std::move(command)) {
  items_.reserve(args.size());
  for (auto& a : args) items_.push_back({std::move(a), false});
}

ArgError Args::error(std::string_view text) const {
  return ArgError("actorscope " + command_ + ": " + std::string(text) + " (try 'actorscope " + command_ +
                  " --help')");
}

std::optional<std::string> Args::value(std::string_view name) {
  const std::string opt = "--" + std::string(name);
  std::optional<std::string> found;
  for (std::size_t i = 0; i < items_.size(); ++i) {
    Item& it = items_[i];
    if (it.used) continue;
    std::string v;
    if (it.text == opt) {
      if (i + 1 >= items_.size() || items_[i + 1].text.starts_with("--")) throw error(opt + " needs a value");
      it.used = true;
      items_[i + 1].used = true;
      v = items_[i + 1].text;
    } else if (it.text.starts_with(opt + "=")) {
      it.used = true;
      v = it.text.substr(opt.size() + 1);
    } else {
      continue;
    }
    if (found) throw error(opt + " is given twice");
    if (v.empty()) throw error(opt + " needs a value");
    found = std::move(v);
  }
  return found;
}

std::string Args::value_or(std::string_view name, std::string fallback) {
  auto v = value(name);
  return v ? std::move(*v) : std::move(fallback);
}

std::optional<std::int64_t> Args::integer(std::string_view name, std::int64_t min, std::int64_t max) {
  auto v = value(name);
  if (!v) return std::nullopt;
  std::int64_t n = 0;
  const char* end = v->data() + v->size();
  auto [ptr, ec] = std::from_chars(v->data(), end, n);
  if (ec != std::errc{} || ptr != end || n < min || n > max)
    throw error("--" + std::string(name) + " must be a whole number from " + std::to_string(min) + " to " +
                std::to_string(max) + ", not \"" + *v + "\"");
  return n;
}

std::optional<double> Args::seconds(std::string_view name, double max) {
  auto v = value(name);
  if (!v) return std::nullopt;
  double s = 0;
  const char* end = v->data() + v->size();
  auto [ptr, ec] = std::from_chars(v->data(), end, s);
  if (ec != std::errc{} || ptr != end || !std::isfinite(s) || s <= 0 || s > max)
    throw error("--" + std::string(name) + " must be a number of seconds above 0 and at most " +
                std::to_string(static_cast<long long>(max)) + ", not \"" + *v + "\"");
  return s;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Args::integer_pair(std::string_view name,
                                                                        std::int64_t min, std::int64_t max) {
  const std::vector<std::string> parts = list(name);
  if (parts.empty()) return std::nullopt;
  const std::string option = "--" + std::string(name);
  if (parts.size() > 2)
    throw error(option + " takes one number (both sides) or two (A's, B's), e.g. " + option + " 1,2");
  std::vector<std::int64_t> values;
  for (const std::string& t : parts) {
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (ec != std::errc{} || ptr != t.data() + t.size() || n < min || n > max)
      throw error(option + " must be " + std::to_string(min) + " to " + std::to_string(max) +
                  " for each side, not \"" + t + "\"");
    values.push_back(n);
  }
  return std::pair(values.front(), values.back());
}

std::vector<std::string> Args::list(std::string_view name) {
  std::vector<std::string> out;
  auto v = value(name);
  if (!v) return out;
  std::size_t start = 0;
  while (start <= v->size()) {
    const std::size_t comma = v->find(',', start);
    std::string part = v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty()) throw error("--" + std::string(name) + " has an empty entry in \"" + *v + "\"");
    out.push_back(std::move(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool Args::flag(std::string_view name) {
  const std::string opt = "--" + std::string(name);
  bool seen = false;
  for (Item& it : items_) {
    if (it.used) continue;
    if (it.text == opt) {
      it.used = true;
      seen = true;
    } else if (it.text.starts_with(opt + "=")) {
      throw error(opt + " takes no value");
    }
  }
  return seen;
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> out;
  for (Item& it : items_) {
    if (it.used || it.text.starts_with("--")) continue;
    it.positional = true;
    out.push_back(it.text);
  }
  return out;
}

void Args::finish(std::size_t max_positionals, std::string_view takes) {
  std::size_t positional = 0;
  for (const Item& it : items_) {
    if (it.used) continue;
    if (!it.positional && it.text.starts_with("-")) throw error("unknown option " + it.text);
    if (++positional <= max_positionals) continue;
    const std::string quoted = "\"" + it.text + "\"";
    const std::string who = command_.empty() ? "actorscope" : command_;
    if (max_positionals == 0)
      throw error("unexpected argument " + quoted + ": " + who +
                  " takes only options; is an option name missing before it?");
    if (!takes.empty())
      throw error(quoted + " is one argument too many: " + who + " takes " + std::string(takes));
    throw error("unexpected argument " + quoted);
  }
}

}  // namespace actorscope::cli
