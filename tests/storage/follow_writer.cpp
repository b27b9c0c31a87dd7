// follow_writer FILE: a program that records itself into FILE, for tst_follow (a recording that another
// process is still writing). It is driven line by line on stdin and answers each line on stdout:
//
//   burst N     -> "committed <events recorded> <events dropped>"  once N more messages were handled
//                  and their events committed
//   checkpoint  -> "checkpoint <busy> <log frames> <checkpointed frames>": PRAGMA wal_checkpoint(TRUNCATE)
//                  through a second connection of its own; busy is 1 when a reader's open snapshot
//                  kept it from finishing
//   quit, or the end of stdin -> detaches the recorder (the session ends cleanly) and exits 0
//
// It prints "ready <session>" once the session's first commit is in the file. Errors go to stderr
// with exit status 1. Every wait has a generous deadline; nothing sleeps as synchronisation.
#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <variant>

namespace as = actorscope;

namespace {

struct Job {
  int n = 0;
};
struct Sync {
  as::Reply<int> reply;
};

/// Handles jobs; answers a Sync once every job before it was handled.
struct Sink {
  using Message = std::variant<Job, Sync>;
  using State = int;
  int pre_start(as::Context<Sink>&) { return 0; }
  void handle(as::Context<Sink>&, Message m, int& handled) {
    if (auto* sync = std::get_if<Sync>(&m)) {
      sync->reply.send(handled);
      return;
    }
    ++handled;
  }
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "follow_writer: %s\n", why.c_str());
  std::exit(1);
}

/// Waits until the recorder has committed (or dropped) at least `events` (a generous deadline; the
/// pause between looks at the counter is not what orders anything).
std::uint64_t wait_committed(const as::Recorder& rec, std::uint64_t events) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    const as::Recorder::Progress p = rec.progress();
    if (p.error) die("the recorder failed: " + *p.error);
    if (p.events_recorded + p.events_dropped >= events) return p.events_recorded;
    if (std::chrono::steady_clock::now() > deadline) die("the recorder did not commit in 120 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void checkpoint(const std::string& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    die("cannot open the file");
  // Long enough to wait out the recorder's commits (milliseconds), short enough that the recorder,
  // whose next commit waits while a TRUNCATE checkpoint holds the write lock (it waits for readers
  // with it), is never held up past its own busy timeout (5 s).
  sqlite3_busy_timeout(db, 2000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &st, nullptr) != SQLITE_OK)
    die(sqlite3_errmsg(db));
  if (sqlite3_step(st) != SQLITE_ROW) die(sqlite3_errmsg(db));
  std::printf("checkpoint %d %d %d\n", sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
              sqlite3_column_int(st, 2));
  sqlite3_finalize(st);
  sqlite3_close_v2(db);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) die("usage: follow_writer FILE");
  const std::string file = argv[1];
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    as::System system{as::make_runtime("asio", {.threads = 1})};
    as::Recorder recorder(file,
                          {.detail = as::Detail::full, .if_exists = as::RecorderOptions::IfExists::replace});
    system.attach(recorder);
    auto sink = system.spawn<Sink>({.name = "sink"});
    if (!sink) die(std::string("cannot spawn: ") + sink.error().what());
    std::uint64_t committed = wait_committed(recorder, 1);
    std::printf("ready %lld\n", static_cast<long long>(recorder.progress().session));

    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.rfind("burst ", 0) == 0) {
        // In chunks that the recorder commits before the next: the engine's buffers for events
        // (16,384 per thread) never fill, so nothing is dropped however large the burst.
        for (int left = std::stoi(line.substr(6)); left > 0;) {
          const int chunk = std::min(left, 1000);
          left -= chunk;
          const std::uint64_t dropped = recorder.progress().events_dropped;
          for (int i = 0; i < chunk; ++i) (void)sink->cast(Job{i});
          if (!sink->call(as::rpc<Sync>, std::chrono::seconds(120)).get()) die("the sink did not answer");
          // At full detail every job is a sent and a handled event.
          committed = wait_committed(recorder, committed + dropped + 2 * static_cast<std::uint64_t>(chunk));
        }
        std::printf("committed %llu %llu\n", static_cast<unsigned long long>(committed),
                    static_cast<unsigned long long>(recorder.progress().events_dropped));
      } else if (line == "checkpoint") {
        checkpoint(file);
      } else if (line == "quit") {
        break;
      } else {
        die("unknown command: " + line);
      }
    }
    system.detach(recorder);  // the last poll, the last commit, ended_at
    if (const auto error = recorder.progress().error) die(*error);
    std::printf("ended %llu\n", static_cast<unsigned long long>(recorder.progress().events_recorded));
  } catch (const std::exception& e) {
    die(e.what());
  }
  return 0;
}
