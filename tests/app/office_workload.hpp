// A small workload of the tests' own for the observatory (the app runs the built-in scenarios):
// an "office" supervisor with two desks; each desk has three clerks and replaces any clerk that
// exits (fails, stops or is killed); clerks join the process groups "clerks" and their desk's;
// a clock hands the desks jobs on a 10 ms interval timer; now and then a job fails its clerk.
// Desks and clerks take a "Job" as their demo message.
#pragma once

#include "gui/workload.hpp"

#include <actorscope/actorscope.hpp>

#include <atomic>
#include <string>
#include <vector>

namespace office {

namespace as = actorscope;
using namespace std::chrono_literals;

struct Job {
  std::uint64_t number;
};

struct Clerk {
  using Message = Job;
  bool failing = true;
  std::string desk;
  void post_start(as::Context<Clerk>& ctx, std::monostate&) {
    ctx.system().groups().join("clerks", {ctx.cell()});
    ctx.system().groups().join_scoped("desks", desk, ctx.cell());
  }
  as::Task<> handle(as::Context<Clerk>&, Job job, std::monostate&) {
    co_await as::sleep(1ms);
    if (failing && job.number % 37 == 0) throw std::runtime_error("job " + std::to_string(job.number) + " went wrong");
  }
};

struct Desk {
  using Message = Job;
  struct State {
    std::string name;
    std::vector<as::ActorRef<Job>> clerks;
    std::size_t next = 0;
    int hired = 0;
  };
  using Arguments = std::string;
  bool failing = true;
  State pre_start(as::Context<Desk>&, std::string name) { return State{std::move(name), {}, 0, 0}; }
  void post_start(as::Context<Desk>& ctx, State& s) {
    for (int i = 0; i < 3; ++i) hire(ctx, s, failing);
  }
  void handle(as::Context<Desk>&, Job job, State& s) {
    if (s.clerks.empty()) return;
    (void)s.clerks[s.next++ % s.clerks.size()].cast(job);
  }
  void handle_supervisor_event(as::Context<Desk>& ctx, const as::SupervisionEvent& e, State& s) {
    if (e.is<as::ActorStarted>()) return;
    const as::ActorCell gone = e.actor();
    std::erase_if(s.clerks, [&](const as::ActorRef<Job>& c) { return c == gone; });
    hire(ctx, s, failing);
  }
  static void hire(as::Context<Desk>& ctx, State& s, bool failing) {
    std::string name = s.name + "/clerk-" + std::to_string(++s.hired);
    if (auto c = ctx.system().template spawn_linked<Clerk>(ctx.cell(), Clerk{failing, s.name}, {.name = std::move(name)}))
      s.clerks.push_back(*c);
  }
};

struct Tick {};
struct Clock {
  using Message = Tick;
  using Arguments = std::vector<as::ActorRef<Job>>;
  struct State {
    std::vector<as::ActorRef<Job>> desks;
    std::uint64_t jobs = 0;
    as::TimerHandle tick;
  };
  State pre_start(as::Context<Clock>&, std::vector<as::ActorRef<Job>> desks) { return State{std::move(desks), 0, {}}; }
  void post_start(as::Context<Clock>& ctx, State& s) { s.tick = ctx.send_interval(10ms, [] { return Tick{}; }); }
  void handle(as::Context<Clock>&, Tick, State& s) {
    for (auto& d : s.desks) (void)d.cast(Job{++s.jobs});
  }
};

struct Office {
  using Message = Tick;
  bool failing = true;
  void post_start(as::Context<Office>& ctx, std::monostate&) {
    std::vector<as::ActorRef<Job>> desks;
    for (const char* name : {"desk-a", "desk-b"})
      desks.push_back(
          ctx.system().template spawn_linked<Desk>(ctx.cell(), Desk{failing}, {.name = name}, std::string(name)).value());
    (void)ctx.template spawn_linked<Clock>({.name = "clock"}, std::move(desks)).value();
  }
  void handle(as::Context<Office>&, Tick, std::monostate&) {}
  void handle_supervisor_event(as::Context<Office>&, const as::SupervisionEvent&, std::monostate&) {}
};

/// `failing`: whether every 37th job fails its clerk (off, the only exits are the ones a test causes).
inline actorscope::gui::Workload workload(bool failing = true) {
  actorscope::gui::Workload w;
  w.name = failing ? "office" : "quiet-office";
  w.summary = "a supervisor, two desks that replace their clerks, and a clock handing out jobs";
  w.start = [failing](as::System& system, std::uint64_t) {
    auto root = system.spawn<Office>(Office{failing}, {.name = "office"});
    if (!root) throw std::runtime_error(root.error().what());
  };
  w.demoMessage = [](const as::ActorCell& c) { return c.as<Job>() ? std::string("Job") : std::string(); };
  w.sendDemoMessage = [](const as::ActorCell& c) {
    static std::atomic<std::uint64_t> n{1000};
    auto ref = c.as<Job>();
    return ref && ref->cast(Job{++n}).has_value();
  };
  return w;
}

}  // namespace office
