// The table of built-in scenarios.
#include "scenarios/scenario.hpp"

#include <array>

namespace actorscope::scenarios {

std::span<const Scenario* const> all() {
  static const std::array<const Scenario*, 6> list = {&supervision(), &pipeline(), &groups(), &timers(),
                                                      &storm(),       &factory()};
  return list;
}

const Scenario* find(std::string_view name) {
  for (const Scenario* s : all())
    if (s->name() == name) return s;
  return nullptr;
}

std::string names() {
  std::string out;
  for (const Scenario* s : all()) {
    if (!out.empty()) out += ", ";
    out += s->name();
  }
  return out;
}

}  // namespace actorscope::scenarios
