// A small "{}" formatter for log lines (GCC 12 has no <format>). Each "{}" takes the next argument
// through operator<<; "{{" and "}}" are literal braces.
#pragma once

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

}  // namespace actorscope::detail
