// The messages and actors the "outside" and "handler" contexts of the documentation examples
// declare names for: a counter (Add, Get) as in the README, workers that take jobs and answer
// Status, and the subscribers of a price feed.
#pragma once

#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

namespace as = actorscope;
using namespace std::chrono_literals;

struct Add {
  int n;
};
struct Get {
  as::Reply<int> reply;
};
using CounterMsg = std::variant<Add, Get>;

struct Job {
  int id = 0;
};
struct Retry {};
struct Tick {};
struct Status {
  as::Reply<std::string> reply;
};
using WorkerMsg = std::variant<Job, Retry, Tick, Status>;

/// An actor that takes WorkerMsg (the supervisor examples start it).
struct Worker {
  using Message = WorkerMsg;
  void handle(as::Context<Worker>&, WorkerMsg, std::monostate&) {}
};

struct Price {
  int cents = 0;
};
struct Redraw {
  int cents = 0;
};
