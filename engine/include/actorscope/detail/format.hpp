// A small "{}" formatter for log lines (GCC 12 has no <format>). Each "{}" takes the next argument
// through operator<<; "{{" and "}}" are literal braces. Also the thousands grouping that the CLI and
// the benchmark notes print counts with (here because both reach the engine and nothing else in
// common; it needs only the standard library).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace actorscope::detail {

inline void format_rest(std::ostringstream& out, std::string_view fmt) {
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if ((fmt[i] == '{' || fmt[i] == '}') && i + 1 < fmt.size() && fmt[i + 1] == fmt[i]) ++i;
    out << fmt[i];
  }
}

template <class First, class... Rest>
void format_rest(std::ostringstream& out, std::string_view fmt, const First& first, const Rest&... rest) {
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if ((c == '{' || c == '}') && i + 1 < fmt.size() && fmt[i + 1] == c) {
      out << c;
      ++i;
    } else if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out << first;
      format_rest(out, fmt.substr(i + 2), rest...);
      return;
    } else {
      out << c;
    }
  }
}

template <class... Args>
std::string format(std::string_view fmt, const Args&... args) {
  std::ostringstream out;
  format_rest(out, fmt, args...);
  return out.str();
}

/// 1234567 -> "1,234,567" (commas whatever the locale: the output is read by people and by tests).
inline std::string with_commas(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace actorscope::detail
