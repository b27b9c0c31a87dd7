// Recorder: engine threads hand events to an EventCollector; the writer thread drains it every
// flush interval into one transaction, folds the same events into a SystemState (for keyframes and
// the live picture), and polls exact per-actor statistics. See docs/RECORDING-FORMAT.md for what
// lands in which table, and why the stream can be replayed to the same state.
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/system.hpp>

#include "database.hpp"
#include "event_rows.hpp"
#include "schema.hpp"
#include "stats_rows.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <span>
#include <system_error>
#include <vector>

#ifndef ACTORSCOPE_VERSION
#define ACTORSCOPE_VERSION "unknown"
#endif

namespace actorscope {

std::string_view to_string(Detail detail) noexcept {
  switch (detail) {
    case Detail::lifecycle:
      return "lifecycle";
    case Detail::sampled:
      return "sampled";
    case Detail::full:
      return "full";
  }
  return "unknown";
}

std::optional<Detail> detail_from_string(std::string_view name) noexcept {
  for (Detail d : {Detail::lifecycle, Detail::sampled, Detail::full})
    if (to_string(d) == name) return d;
  return std::nullopt;
}

namespace storage {

namespace {

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

observe::Interest interest_for(const RecorderOptions& o) {
  switch (o.detail) {
    case Detail::lifecycle:
      return {};
    case Detail::sampled:
      // Only the sampled messages are timed: three clock reads for every message would cost more
      // than the rest of the recording (docs/PERFORMANCE.md); actor_stats.timed says how many.
      return {.messages = true,
              .timing = true,
              .type_names = true,
              .sample_every = std::max<std::uint32_t>(1, o.sample_every),
              .time_sampled_only = true};
    case Detail::full:
      return {.messages = true, .timing = true, .type_names = true, .sample_every = 1};
  }
  return {};
}

bool changes_actor_row(observe::EventKind k) {
  using K = observe::EventKind;
  return k == K::spawned || k == K::started || k == K::linked || k == K::unlinked || k == K::stopped ||
         k == K::failed || k == K::killed || k == K::child_restarted || k == K::mailbox_configured;
}

}  // namespace

/// What attach asks the writer to start a session with.
struct SessionStart {
  std::string runtime;
  std::uint32_t threads = 0;
  TimePoint t0{};
};

/// The last poll, taken by on_detach once no more events can come.
struct SessionClose {
  std::vector<observe::StatsSample> samples;
  std::vector<observe::FactorySample> factories;
  TimePoint t{};
};

/// The writer thread's state. Requests and their answers are guarded by Recorder::m_; everything
/// else belongs to the writer thread (and to the constructor and destructor, before and after it).
/// It is the sink of the recorder's StateFeed: each event and poll is written as it is folded, so
/// that the file holds exactly the order a reader folds again.
struct RecorderWriter final : observe::StateFeed::Sink {
  explicit RecorderWriter(Recorder& r) : rec(r) {}

  Recorder& rec;
  std::unique_ptr<Database> db;
  static constexpr int kBulkRows = 32;
  Statement insert_session, update_session, end_session, insert_event, insert_events, upsert_actor,
      insert_poll, insert_stats, insert_factory_stats, insert_keyframe;

  // -- requests (Recorder::m_) --
  std::optional<SessionStart> start;
  std::optional<SessionClose> close;
  bool stop = false;
  bool start_done = false;
  bool close_done = false;
  std::exception_ptr start_error;
  std::optional<std::string> error;

  // -- the session being written (writer thread) --
  bool active = false;
  bool failed = false;
  std::int64_t session = 0;
  std::int64_t max_item_ns = 0;
  std::uint64_t keyframe_every = 1;
  std::uint64_t lost = 0;
  std::chrono::steady_clock::time_point next_poll{};
  std::vector<observe::Event> batch;
  std::vector<observe::Event> rows;  ///< folded events, written many per statement at the end of a step

  void prepare() {
    insert_session = db->prepare(
        "INSERT INTO sessions(started_at, updated_at, runtime, threads, scenario, seed, detail, "
        "sample_every, "
        "stats_interval_ns, keyframe_every, start_t_ns, end_t_ns, recorder) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    update_session = db->prepare(
        "UPDATE sessions SET updated_at = ?, end_t_ns = ?, events_recorded = ?, events_dropped = ? WHERE id "
        "= ?");
    end_session = db->prepare("UPDATE sessions SET ended_at = ? WHERE id = ?");
    insert_event = db->prepare(insert_events_sql(1));
    insert_events = db->prepare(insert_events_sql(kBulkRows));
    upsert_actor = db->prepare(
        "INSERT OR REPLACE INTO actors(session_id, actor_id, name, type_name, parent_id, thread, spawned_ns, "
        "stopped_ns, exit_kind, exit_reason, child_id, restarts, mailbox_capacity, overflow) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert_poll =
        db->prepare("INSERT INTO stats_polls(session_id, poll, t_ns, after_seq, dropped) VALUES (?,?,?,?,?)");
    insert_stats = db->prepare(insert_sample_sql());
    insert_factory_stats = db->prepare(insert_factory_sample_sql());
    insert_keyframe = db->prepare(
        "INSERT OR REPLACE INTO keyframes(session_id, seq, poll, t_ns, state) VALUES (?,?,?,?,?)");
  }

  void begin_transaction() { db->exec("BEGIN IMMEDIATE"); }
  void commit() { db->exec("COMMIT"); }
  void rollback() noexcept {
    try {
      db->exec("ROLLBACK");
    } catch (...) {  // nothing was open, or the connection is gone: either way nothing to undo
    }
  }

  /// The fold as it stands, at (feed seq, feed polls). The caller holds state_m_.
  void write_keyframe() {
    const observe::StateFeed& feed = rec.feed_;
    std::string image = feed.state().serialize();
    insert_keyframe.bind(1, session);
    insert_keyframe.bind(2, static_cast<std::int64_t>(feed.seq()));
    insert_keyframe.bind(3, static_cast<std::int64_t>(feed.polls()));
    insert_keyframe.bind(4, max_item_ns);
    insert_keyframe.bind_blob(5, image);
    insert_keyframe.run();
  }

  void write_actor(const observe::ActorRecord& a) {
    upsert_actor.bind(1, session);
    upsert_actor.bind(2, static_cast<std::int64_t>(a.id.pid));
    upsert_actor.bind_or_null(3, std::string_view(a.name));
    upsert_actor.bind_or_null(4, std::string_view(a.type_name));
    upsert_actor.bind_or_null(5, static_cast<std::int64_t>(a.parent.pid));
    upsert_actor.bind(6, static_cast<std::int64_t>(a.thread));
    upsert_actor.bind(7, observe::to_ns(a.spawned));
    if (a.exit_kind) {
      upsert_actor.bind(8, observe::to_ns(a.stopped));
      upsert_actor.bind(9, to_string(*a.exit_kind));
      upsert_actor.bind(10, std::string_view(a.exit_reason));
    } else {
      upsert_actor.bind_null(8);
      upsert_actor.bind_null(9);
      upsert_actor.bind_null(10);
    }
    upsert_actor.bind_or_null(11, std::string_view(a.child_id));
    upsert_actor.bind(12, static_cast<std::int64_t>(a.restarts));
    upsert_actor.bind(13, static_cast<std::int64_t>(a.mailbox_capacity));
    if (a.mailbox_capacity != 0) {
      upsert_actor.bind(14, to_string(a.overflow));
    } else {
      upsert_actor.bind_null(14);
    }
    upsert_actor.run();
  }

  // -- StateFeed::Sink: called by rec.feed_.fold(), inside write()'s transaction, under state_m_ --

  void on_event(observe::Event& e) override {
    max_item_ns = std::max(max_item_ns, observe::to_ns(e.time));
    if (changes_actor_row(e.kind))
      if (const observe::ActorRecord* a = rec.feed_.state().actor(e.actor)) write_actor(*a);
    // A configuration names the specs its children run (the fold binds them in spec order).
    if (e.kind == observe::EventKind::supervisor_configured)
      if (const observe::SupervisorRecord* s = rec.feed_.state().supervisor(e.actor))
        for (const auto& c : s->children)
          if (const observe::ActorRecord* a = c.actor.is_valid() ? rec.feed_.state().actor(c.actor) : nullptr)
            write_actor(*a);
    if (e.seq % keyframe_every == 0) write_keyframe();
    rows.push_back(std::move(e));
  }

  /// Every poll is written, empty or not: a reader folds it at the same place (after_seq) and gets
  /// the same clock, the same buckets and the same drops.
  void on_poll(TimePoint t, std::span<const observe::StatsSample> samples, std::uint64_t dropped) override {
    const observe::StateFeed& feed = rec.feed_;
    const std::int64_t t_ns = observe::to_ns(t);
    insert_poll.bind(1, session);
    insert_poll.bind(2, static_cast<std::int64_t>(feed.polls()));
    insert_poll.bind(3, t_ns);
    insert_poll.bind(4, static_cast<std::int64_t>(feed.seq()));
    insert_poll.bind(5, static_cast<std::int64_t>(dropped));
    insert_poll.run();
    for (const observe::StatsSample& x : samples) {
      bind_sample(insert_stats, session, static_cast<std::int64_t>(feed.polls()), x);
      insert_stats.run();
    }
    max_item_ns = std::max(max_item_ns, t_ns);
  }

  /// A poll's factory samples, under the number on_poll gives the poll right after.
  void on_factory_poll(TimePoint t, std::span<const observe::FactorySample> samples) override {
    const auto poll = static_cast<std::int64_t>(rec.feed_.polls());
    for (const observe::FactorySample& x : samples) insert_factory_sample(insert_factory_stats, session, poll, x);
    max_item_ns = std::max(max_item_ns, observe::to_ns(t));
  }

  void write_rows() {
    std::size_t i = 0;
    for (; i + kBulkRows <= rows.size(); i += kBulkRows) {
      for (int r = 0; r < kBulkRows; ++r) bind_event(insert_events, r * kEventParams, session, rows[i + r]);
      insert_events.run();
    }
    for (; i < rows.size(); ++i) {
      bind_event(insert_event, 0, session, rows[i]);
      insert_event.run();
    }
    rows.clear();
  }

  void begin_session(const SessionStart& s) {
    const RecorderOptions& o = rec.options_;
    const std::int64_t now = wall_ns();
    const std::int64_t t0 = observe::to_ns(s.t0);
    begin_transaction();
    try {
      insert_session.bind(1, now);
      insert_session.bind(2, now);
      insert_session.bind(3, std::string_view(s.runtime));
      insert_session.bind(4, static_cast<std::int64_t>(s.threads));
      insert_session.bind_or_null(5, std::string_view(o.scenario));
      if (o.seed) {
        insert_session.bind(6, static_cast<std::int64_t>(*o.seed));
      } else {
        insert_session.bind_null(6);
      }
      insert_session.bind(7, to_string(o.detail));
      insert_session.bind(8,
                          static_cast<std::int64_t>(rec.interest_.messages ? rec.interest_.sample_every : 0));
      insert_session.bind(9, observe::to_ns(o.stats_interval));
      insert_session.bind(10, static_cast<std::int64_t>(o.keyframe_every));
      insert_session.bind(11, t0);
      insert_session.bind(12, t0);
      insert_session.bind(13, std::string_view("actorscope " ACTORSCOPE_VERSION));
      insert_session.run();
      session = sqlite3_last_insert_rowid(db->handle());
      max_item_ns = t0;
      keyframe_every = std::max<std::uint64_t>(1, o.keyframe_every);
      lost = 0;
      rows.clear();
      failed = false;
      {
        std::lock_guard lk(rec.state_m_);
        rec.feed_ = observe::StateFeed(observe::StateFeed::live_rules(), o.limits);
        rec.feed_.set_sink(this);
        write_keyframe();  // seq 0: the empty state, so every time has a keyframe at or before it
      }
      commit();
    } catch (...) {
      rollback();
      throw;
    }
    active = true;
    next_poll = std::chrono::steady_clock::now() + o.stats_interval;
    rec.session_.store(session, std::memory_order_relaxed);
    rec.recorded_.store(0, std::memory_order_relaxed);
    rec.dropped_.store(0, std::memory_order_relaxed);
    rec.polls_.store(0, std::memory_order_relaxed);
    rec.recording_.store(true, std::memory_order_release);
  }

  /// Drains what is ready (everything, when closing), polls when due, folds what the feed lets
  /// through and writes it all in one transaction.
  void step(SessionClose* closing) {
    observe::EventCollector& collector = *rec.collector_;
    batch.clear();
    collector.drain(batch, closing != nullptr);
    const std::uint64_t dropped_total = collector.dropped();

    if (failed) {
      lost += batch.size();  // nothing is written any more
    } else {
      std::lock_guard lk(rec.state_m_);
      rec.feed_.push_events(batch);
      if (closing != nullptr) {
        // The last poll, taken once no more events could come; the flush released everything.
        rec.feed_.push_poll(closing->t, std::move(closing->samples), dropped_total, std::move(closing->factories));
        rec.feed_.finish();
      } else if (const auto now = std::chrono::steady_clock::now(); now >= next_poll) {
        next_poll = std::max(next_poll + rec.options_.stats_interval, now);
        std::lock_guard plk(rec.poll_m_);
        if (rec.poller_) {
          const TimePoint t = rec.runtime_->now();
          rec.feed_.push_poll(t, rec.bucketer_.update(rec.poller_->poll(), t), dropped_total,
                              rec.factory_bucketer_.update(rec.poller_->poll_factories(), t));
        }
      }
      try {
        write(dropped_total, closing != nullptr);
      } catch (const SqliteError& e) {
        rollback();
        fail(recording_error(rec.file_, e).what());
      } catch (const std::exception& e) {
        rollback();
        fail(e.what());
      }
    }
    rec.dropped_.store(dropped_total + lost, std::memory_order_relaxed);
    if (closing != nullptr) {
      active = false;
      rec.recording_.store(false, std::memory_order_release);
    }
  }

  /// Folds what the feed lets through (its sink, this, writes each item) in one transaction. The
  /// caller holds state_m_.
  void write(std::uint64_t dropped_total, bool closing) {
    begin_transaction();
    rec.feed_.fold();
    write_rows();
    if (closing) write_keyframe();
    const std::int64_t now = wall_ns();
    update_session.bind(1, now);
    update_session.bind(2, max_item_ns);
    update_session.bind(3, static_cast<std::int64_t>(rec.feed_.seq()));
    update_session.bind(4, static_cast<std::int64_t>(dropped_total));
    update_session.bind(5, session);
    update_session.run();
    if (closing) {
      end_session.bind(1, now);
      end_session.bind(2, session);
      end_session.run();
    }
    commit();
    rec.recorded_.store(rec.feed_.seq(), std::memory_order_relaxed);
    rec.polls_.store(rec.feed_.polls(), std::memory_order_relaxed);
  }

  void fail(std::string what) {
    failed = true;
    lost += rows.size() + rec.feed_.backlog();
    rows.clear();
    std::lock_guard lk(rec.m_);
    if (!error) error = "recording stopped: " + std::move(what);
  }
};

}  // namespace storage

// ---------------------------------------------------------------------------------------------

namespace {

void remove_recording_files(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::path p = file;
    p += suffix;
    std::filesystem::remove(p, ec);
  }
}

}  // namespace

Recorder::Recorder(std::filesystem::path file, RecorderOptions options)
    : file_(std::move(file)), options_(std::move(options)), interest_(storage::interest_for(options_)) {
  using Kind = RecordingError::Kind;
  std::error_code ec;
  const bool exists = std::filesystem::exists(file_, ec);
  if (exists) {
    if (std::filesystem::is_directory(file_, ec))
      throw RecordingError(
          Kind::cannot_open, file_,
          storage::quoted(file_) + " is a folder; give the recording a file name, e.g. session.db");
    switch (options_.if_exists) {
      case RecorderOptions::IfExists::refuse:
        throw RecordingError(
            Kind::already_exists, file_,
            storage::quoted(file_) +
                " already exists; choose another file name, or allow adding to it or replacing it");
      case RecorderOptions::IfExists::replace:
        remove_recording_files(file_);
        break;
      case RecorderOptions::IfExists::append:
        // What the file is, found by reading it only: a file that cannot take a session is
        // refused before anything in it changes (not even its journal mode).
        try {
          storage::check_appendable(file_, static_cast<int>(options_.busy_timeout.count()));
        } catch (const RecordingError& e) {
          throw RecordingError(e.kind(), e.file(), std::string(e.what()) + " (the file was left as it was)");
        }
        break;
    }
  }
  writer_ = std::make_unique<storage::RecorderWriter>(*this);
  try {
    writer_->db = std::make_unique<storage::Database>(file_, storage::Database::Mode::create,
                                                      static_cast<int>(options_.busy_timeout.count()));
    storage::Database& db = *writer_->db;
    // The schema first, in one transaction that a refusal rolls back, while the file is still in
    // the journal mode it came in: a file that is not ours is left exactly as it was.
    storage::create_or_migrate(db, file_);
    // WAL: readers (inspect, the observatory) can read while the recorder writes, and a commit is
    // durable against a crash of this process without an fsync per batch (synchronous=NORMAL).
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA cache_size = -16384");
    // Checkpoint (copy the WAL into the file, with an fsync) every 40 MB of log rather than SQLite's
    // 4 MB: the writer stalls for checkpoints a tenth as often, which is worth about a fifth of its
    // throughput. The log is checkpointed and removed when the recording is closed.
    db.exec("PRAGMA wal_autocheckpoint = 10000");
    writer_->prepare();
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  }
  thread_ = std::thread([this] { run_writer(); });
}

Recorder::~Recorder() {
  detach_all();  // ends an open session (on_detach) before anything here goes away
  {
    std::lock_guard lk(m_);
    writer_->stop = true;
  }
  wake_writer_.notify_all();
  thread_.join();
  // Leave a finished recording as one self-contained file (the WAL checkpointed into it). If a
  // reader still has it open, the switch fails and SQLite checkpoints when the last one closes.
  try {
    writer_->db->exec("PRAGMA busy_timeout = 200");
    writer_->db->exec("PRAGMA journal_mode = DELETE");
  } catch (...) {
  }
}

void Recorder::on_event(const observe::Event& event) noexcept {
  collector_->on_event(event);
}

void Recorder::on_attach(System& system) {
  std::unique_lock lk(m_);
  if (writer_->active || writer_->start)
    throw std::logic_error(
        "actorscope: this Recorder is already recording a System; a Recorder records one System at a time "
        "(detach "
        "it from the other first, or make a second Recorder)");
  // No System is attached, so no on_event is running: the collector can be replaced.
  collector_owner_ = std::make_unique<observe::EventCollector>(observe::EventCollector::Options{
      .interest = interest_, .per_thread_capacity = options_.per_thread_capacity});
  collector_ = collector_owner_.get();
  {
    std::lock_guard plk(poll_m_);
    poller_ = std::make_unique<observe::StatsPoller>(system);
    // The counters so far are the baseline, not a bucket: the session's statistics cover what the
    // actors do from now on, not their lives before the recording.
    bucketer_ = {};
    bucketer_.baseline(poller_->poll());
    factory_bucketer_ = {};
    factory_bucketer_.baseline(poller_->poll_factories());
    runtime_ = &system.runtime();
  }
  writer_->start = storage::SessionStart{std::string(system.runtime().name()),
                                         system.runtime().thread_count(), system.runtime().now()};
  writer_->start_done = false;
  wake_writer_.notify_all();
  writer_done_.wait(lk, [&] { return writer_->start_done; });
  if (writer_->start_error) {
    std::exception_ptr err = std::exchange(writer_->start_error, nullptr);
    {
      std::lock_guard plk(poll_m_);
      poller_.reset();
      runtime_ = nullptr;
    }
    try {
      std::rethrow_exception(err);
    } catch (const storage::SqliteError& e) {
      throw storage::recording_error(file_, e);
    }
  }
}

void Recorder::on_detach(System&) noexcept {
  storage::SessionClose last;
  {
    std::lock_guard plk(poll_m_);
    if (poller_) {
      try {
        last.t = runtime_->now();
        last.samples = bucketer_.update(poller_->poll(), last.t);
        last.factories = factory_bucketer_.update(poller_->poll_factories(), last.t);
      } catch (...) {  // no memory for the last poll: the session still ends, without it
      }
      poller_.reset();
    }
    runtime_ = nullptr;
  }
  std::unique_lock lk(m_);
  if (!writer_->active) return;
  writer_->close = std::move(last);
  writer_->close_done = false;
  wake_writer_.notify_all();
  writer_done_.wait(lk, [&] { return writer_->close_done; });
}

void Recorder::run_writer() noexcept {
  storage::RecorderWriter& w = *writer_;
  std::unique_lock lk(m_);
  for (;;) {
    wake_writer_.wait_for(lk, options_.flush_interval, [&] { return w.stop || w.start || w.close; });
    std::optional<storage::SessionStart> start = std::exchange(w.start, std::nullopt);
    std::optional<storage::SessionClose> close = std::exchange(w.close, std::nullopt);
    const bool stop = w.stop;
    lk.unlock();
    if (start) {
      std::exception_ptr err;
      try {
        w.begin_session(*start);
      } catch (...) {
        err = std::current_exception();
      }
      lk.lock();
      w.start_error = err;
      w.start_done = true;
      writer_done_.notify_all();
      lk.unlock();
    }
    if (w.active) {
      try {
        w.step(close ? &*close : nullptr);
      } catch (...) {  // no memory to drain into: count the session as failed rather than die
        w.fail("out of memory");
        if (close) {
          w.active = false;
          recording_.store(false, std::memory_order_release);
        }
      }
    }
    lk.lock();
    if (close) {
      w.close_done = true;
      writer_done_.notify_all();
    }
    if (stop && !w.active) return;
  }
}

Recorder::Progress Recorder::progress() const {
  Progress p;
  p.session = session_.load(std::memory_order_relaxed);
  p.recording = recording_.load(std::memory_order_acquire);
  p.events_recorded = recorded_.load(std::memory_order_relaxed);
  p.events_dropped = dropped_.load(std::memory_order_relaxed);
  p.stats_polls = polls_.load(std::memory_order_relaxed);
  std::lock_guard lk(m_);
  p.error = writer_->error;
  return p;
}

observe::SystemState Recorder::state() const {
  std::lock_guard lk(state_m_);
  return feed_.state();
}

}  // namespace actorscope
