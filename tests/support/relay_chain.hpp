// Shared by the cause-chain suites: actors that pass a Step along a chain, the last of which
// throws, so that a failure has causes several messages deep.
#pragma once

#include "recording_test.hpp"

#ifndef Q_MOC_RUN

#include <optional>
#include <stdexcept>
#include <string>

namespace recording_test {

struct Step {
  int n = 0;
};

// Forwards a Step to the next actor; the last one throws instead.
struct Relay {
  using Message = Step;
  std::optional<as::ActorRef<Step>> next;
  std::string name;
  Probe* probe = nullptr;
  void handle(as::Context<Relay>&, Step s, std::monostate&) {
    probe->record(name + " got " + std::to_string(s.n));
    if (s.n >= 1000) return;  // noise: handled, never passed on
    if (!next) throw std::runtime_error(name + " cannot take step " + std::to_string(s.n));
    (void)next->cast(Step{s.n + 1});
  }
};

}  // namespace recording_test

#endif  // Q_MOC_RUN
