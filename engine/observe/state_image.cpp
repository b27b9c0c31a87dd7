// The keyframe image of a SystemState: "ASKF", a format number, then the fields in a fixed order.
// Integers are LEB128 varints (zigzag for signed ones), strings are a length and bytes.
//
// The order of the fields is written once, in SystemState::image_fields, and serves both
// directions (as CAF's inspectors do): Save writes each field it is shown, Load reads into it. Each
// format appends to the one before, and older images are still read: a field that came with a
// later format is read only from images that have it, and Load fills in what an older image lacks.
#include <actorscope/observe/observer.hpp>
#include <actorscope/observe/system_state.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

namespace actorscope::observe {

namespace {

constexpr char kMagic[4] = {'A', 'S', 'K', 'F'};
// 2: ActorRecord::timed. 3: ActorRecord::child_tally and its limit. 4: ActorRecord::busy. 5:
// MessageRecord::timer and the pending timer ticks. 6: Event::cause of the recent events. 7: the
// counts of the supervisor event kinds, ActorRecord's child_id, restarts and replaces, and the
// SupervisorRecords. 8: bounded mailboxes: ActorRecord's mailbox_capacity and overflow, its dropped
// and rejected counters, and theirs per history point. 9: the FactoryRecords (and the counts of the
// factory event kinds, in format 7's list). 10: FactoryCounters::retried.
constexpr std::uint64_t kImageFormat = 10;
/// The event kinds images of formats 1 to 6 count (the ones before supervisor_configured).
constexpr std::size_t kKindsBeforeFormat7 = static_cast<std::size_t>(EventKind::supervisor_configured);

/// Writes the fields it is shown.
class Save {
 public:
  static constexpr bool loading = false;
  std::uint64_t format() const noexcept { return kImageFormat; }

  template <class T>
  void u(const T& v) {
    static_assert(std::is_unsigned_v<T>);
    put(static_cast<std::uint64_t>(v));
  }
  void i(const std::int64_t& v) { put((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
  void b(const bool& v) { put(v ? 1 : 0); }
  void s(const std::string& v) { str(v); }
  /// An interned string (a message type): written as text, interned again when read.
  void s(const std::string_view& v) { str(v); }
  void id(const ActorId& v) {
    put(v.node);
    put(v.pid);
  }
  void t(const TimePoint& v) { i(to_ns(v)); }
  void d(const Duration& v) { i(to_ns(v)); }
  template <class E>
  void e(const E& v, std::uint64_t /*count_of_values*/) {
    put(static_cast<std::uint64_t>(v));
  }
  /// An optional enumeration: 0 when empty, else its value + 1.
  template <class E>
  void opt_e(const std::optional<E>& v, std::uint64_t /*count_of_values*/) {
    put(v ? static_cast<std::uint64_t>(*v) + 1 : 0);
  }
  void opt_t(const std::optional<TimePoint>& v) {
    b(v.has_value());
    if (v) t(*v);
  }
  void hist(const LogHistogram& h) {
    put(h.buckets().size());
    for (std::uint64_t c : h.buckets()) put(c);
    put(h.min());
    put(h.max());
    put(h.sum());
  }
  /// A sequence (vector, deque, set): its size, then each element.
  template <class C, class F>
  void list(const C& c, F&& each) {
    put(c.size());
    for (const auto& x : c) each(x);
  }
  /// A map's entries: its size, then each key and value.
  template <class M, class F>
  void entries(const M& m, F&& each) {
    put(m.size());
    for (const auto& [k, v] : m) each(k, v);
  }
  /// A map whose key is in its values (`key_of`): its size, then each value.
  template <class M, class Key, class F>
  void values(const M& m, Key&& /*key_of*/, F&& each) {
    put(m.size());
    for (const auto& [k, v] : m) each(v);
  }
  /// The values of an actor-keyed map that `has` something: their count, then each one's key and `each`.
  template <class M, class Has, class F>
  void sparse(const M& m, Has&& has, F&& each, const char* /*stray*/) {
    put(static_cast<std::uint64_t>(std::count_if(m.begin(), m.end(), [&](const auto& kv) { return has(kv.second); })));
    for (const auto& [k, v] : m) {
      if (!has(v)) continue;
      id(k);
      each(v);
    }
  }
  /// The elements of a sequence that `has` something: their count, then each one's place and `each`.
  template <class C, class Has, class F>
  void sparse_at(const C& c, Has&& has, F&& each, const char* /*stray*/) {
    put(static_cast<std::uint64_t>(std::count_if(c.begin(), c.end(), has)));
    for (std::size_t at = 0; at < c.size(); ++at) {
      if (!has(c[at])) continue;
      put(at);
      each(c[at]);
    }
  }

  std::string out;

 private:
  void put(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void str(std::string_view v) {
    put(v.size());
    out.append(v);
  }
};

/// Reads into the fields it is shown, checking every count, range and length against the image.
class Load {
 public:
  static constexpr bool loading = true;
  Load(std::string_view in, std::uint64_t format) : in_(in), format_(format) {}
  std::uint64_t format() const noexcept { return format_; }

  template <class T>
  void u(T& v) {
    static_assert(std::is_unsigned_v<T>);
    const std::uint64_t x = get();
    if (x > std::numeric_limits<T>::max()) fail("a number is out of range");
    v = static_cast<T>(x);
  }
  void i(std::int64_t& v) {
    const std::uint64_t z = get();
    v = static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  void b(bool& v) {
    const std::uint64_t x = get();
    if (x > 1) fail("a flag is neither 0 nor 1");
    v = x == 1;
  }
  void s(std::string& v) { v = str(); }
  void s(std::string_view& v) { v = intern(str()); }
  void id(ActorId& v) {
    const std::uint64_t node = get();
    if (node > 0xffffffffu) fail("an actor id's node is out of range");
    v.node = static_cast<std::uint32_t>(node);
    v.pid = get();
  }
  void t(TimePoint& v) {
    std::int64_t ns = 0;
    i(ns);
    v = time_from_ns(ns);
  }
  void d(Duration& v) {
    std::int64_t ns = 0;
    i(ns);
    v = duration_from_ns(ns);
  }
  template <class E>
  void e(E& v, std::uint64_t count_of_values) {
    const std::uint64_t x = get();
    if (x >= count_of_values) fail("an enumeration value is out of range");
    v = static_cast<E>(x);
  }
  template <class E>
  void opt_e(std::optional<E>& v, std::uint64_t count_of_values) {
    const std::uint64_t x = get();
    if (x > count_of_values) fail("an enumeration value is out of range");
    v = x == 0 ? std::nullopt : std::optional<E>(static_cast<E>(x - 1));
  }
  void opt_t(std::optional<TimePoint>& v) {
    bool has = false;
    b(has);
    v.reset();
    if (has) t(v.emplace());
  }
  void hist(LogHistogram& h) {
    std::vector<std::uint64_t> buckets(count(4096));
    for (auto& c : buckets) c = small();
    const std::uint64_t mn = get(), mx = get(), sum = get();
    h = LogHistogram::from_parts(std::move(buckets), mn, mx, sum);
  }
  template <class C, class F>
  void list(C& c, F&& each) {
    c.clear();
    for (std::uint64_t n = count(); n > 0; --n) {
      typename C::value_type x{};
      each(x);
      c.insert(c.end(), std::move(x));
    }
  }
  template <class M, class F>
  void entries(M& m, F&& each) {
    m.clear();
    for (std::uint64_t n = count(); n > 0; --n) {
      typename M::key_type k{};
      typename M::mapped_type v{};
      each(k, v);
      m.insert_or_assign(std::move(k), std::move(v));
    }
  }
  template <class M, class Key, class F>
  void values(M& m, Key&& key_of, F&& each) {
    m.clear();
    for (std::uint64_t n = count(); n > 0; --n) {
      // The value is read in place, in a map node of its own, which is then linked into `m` under
      // the key read with it: nothing is moved or copied (10,000 times for a big image). Images
      // list their keys in order: the end is the right hint.
      M one;
      auto node = one.extract(one.try_emplace(typename M::key_type{}).first);
      each(node.mapped());
      node.key() = key_of(node.mapped());
      const auto at = m.insert(m.end(), std::move(node));
      if (!node.empty()) at->second = std::move(node.mapped());  // a repeated key: the last one wins
    }
  }
  template <class M, class Has, class F>
  void sparse(M& m, Has&& /*has*/, F&& each, const char* stray) {
    for (std::uint64_t n = count(); n > 0; --n) {
      ActorId key;
      id(key);
      const auto it = m.find(key);
      if (it == m.end()) fail(stray);
      each(it->second);
    }
  }
  template <class C, class Has, class F>
  void sparse_at(C& c, Has&& /*has*/, F&& each, const char* stray) {
    for (std::uint64_t n = count(); n > 0; --n) {
      const std::uint64_t at = get();
      if (at >= c.size()) fail(stray);
      each(c[static_cast<std::size_t>(at)]);
    }
  }

  bool at_end() const noexcept { return pos_ == in_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw StateFormatError("the keyframe image is corrupt at byte " + std::to_string(pos_) + ": " + why);
  }

  /// A number that is usually one byte (a bucket's count): that case without the loop.
  std::uint64_t small() {
    if (pos_ < in_.size()) {
      const auto byte = static_cast<unsigned char>(in_[pos_]);
      if ((byte & 0x80) == 0) {
        ++pos_;
        return byte;
      }
    }
    return get();
  }

  std::uint64_t get() {
    // Away from the end, a number is read without checking the end at every byte (10 bytes hold any).
    if (in_.size() - pos_ >= 10) {
      std::uint64_t v = 0;
      for (unsigned shift = 0; shift <= 63; shift += 7) {
        const auto byte = static_cast<unsigned char>(in_[pos_++]);
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return v;
      }
      fail("a number is too long");
    }
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (pos_ >= in_.size()) fail("it ends in the middle of a number");
      if (shift > 63) fail("a number is too long");
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
  }

 private:
  std::uint64_t count(std::uint64_t max = 1u << 26) {
    const std::uint64_t n = get();
    if (n > max || n > in_.size() - pos_ + 1) fail("a count is larger than the image");
    return n;
  }
  std::string str() {
    const std::uint64_t n = get();
    if (n > in_.size() - pos_) fail("a string runs past the end");
    std::string v(in_.substr(pos_, n));
    pos_ += n;
    return v;
  }

  std::string_view in_;
  std::uint64_t format_;
  std::size_t pos_ = 0;
};

template <class Io, class E>
void event_fields(Io& io, E& e) {
  io.e(e.kind, kEventKindCount);
  io.e(e.lane, 4);
  io.b(e.failed);
  io.b(e.timed);
  io.u(e.thread);
  io.u(e.seq);
  io.t(e.time);
  io.id(e.actor);
  io.id(e.peer);
  io.u(e.trace);
  io.d(e.queue);
  io.d(e.handling);
  io.d(e.period);
  io.t(e.scheduled);
  io.s(e.message_type);
  io.s(e.name);
  io.s(e.text);
  // (Event::cause comes with format 6, after everything else: see image_fields.)
}

template <class Io, class A>
void actor_fields(Io& io, A& a) {
  io.id(a.id);
  io.id(a.parent);
  io.list(a.children, [&](auto& c) { io.id(c); });
  io.s(a.name);
  io.s(a.type_name);
  io.u(a.thread);
  io.e(a.status, 6);
  io.opt_e(a.exit_kind, 3);
  io.s(a.exit_reason);
  io.t(a.spawned);
  io.t(a.stopped);
  io.u(a.handled);
  io.u(a.sent);
  io.u(a.mailbox_depth);
  io.u(a.mailbox_max);
  if (io.format() >= 2) io.u(a.timed);
  io.d(a.queue_time);
  io.d(a.handling_time);
  if constexpr (Io::loading) {
    // Format 1 timed every message whenever it timed at all.
    if (io.format() < 2 && (a.queue_time != Duration::zero() || a.handling_time != Duration::zero()))
      a.timed = a.handled;
  }
  io.u(a.child_failures);
  io.u(a.supervision_handled);
  io.u(a.messages_observed);
  io.u(a.handler_failures);
  io.hist(a.queue_ns);
  io.hist(a.handling_ns);
  io.list(a.recent_failures, [&](auto& f) {
    io.t(f.time);
    io.id(f.actor);
    io.s(f.error);
  });
  io.list(a.history, [&](auto& h) {
    io.i(h.bucket);
    io.u(h.handled);
    io.u(h.mailbox_max);
  });
}

}  // namespace

template <class Io, class Self>
void SystemState::image_fields(Io& io, Self& st) {
  io.u(st.limits_.stopped_actors);
  io.u(st.limits_.recent_events);
  io.u(st.limits_.recent_messages);
  io.u(st.limits_.failures_per_actor);
  io.u(st.limits_.history_points);
  io.d(st.limits_.history_bucket);

  io.values(st.actors_, [](const ActorRecord& a) { return a.id; }, [&](auto& a) { actor_fields(io, a); });
  io.list(st.stopped_order_, [&](auto& id) { io.id(id); });
  io.u(st.alive_);
  io.entries(st.groups_, [&](auto& scope, auto& groups) {
    io.s(scope);
    io.entries(groups, [&](auto& group, auto& members) {
      io.s(group);
      io.list(members, [&](auto& m) { io.id(m); });
    });
  });
  io.entries(st.registry_, [&](auto& name, auto& id) {
    io.s(name);
    io.id(id);
  });
  io.values(st.timers_, [](const TimerRecord& t) { return t.id; }, [&](auto& t) {
    io.u(t.id);
    io.id(t.target);
    io.id(t.owner);
    io.s(t.kind);
    io.d(t.period);
    io.t(t.started);
    io.t(t.next_due);
    io.u(t.fired);
    io.hist(t.lateness_ns);
  });
  io.list(st.recent_events_, [&](auto& e) { event_fields(io, e); });
  io.list(st.recent_messages_, [&](auto& m) {
    io.u(m.trace);
    io.id(m.from);
    io.id(m.to);
    io.s(m.type);
    io.t(m.sent);
    io.opt_t(m.handled);
    io.d(m.queue);
    io.d(m.handling);
    io.b(m.failed);
  });
  io.s(st.runtime_);
  io.u(st.threads_);
  io.t(st.first_time_);
  io.t(st.time_);
  io.u(st.applied_);
  for (std::size_t k = 0; k < kKindsBeforeFormat7; ++k) io.u(st.by_kind_[k]);  // (format 7 adds the rest)
  io.u(st.dropped_);

  // Format 3: the child tallies, and their limit.
  if (io.format() >= 3) {
    io.d(st.limits_.child_tally);
    io.sparse(
        st.actors_, [](const ActorRecord& a) { return !a.child_tally.empty(); },
        [&](auto& a) {
          io.list(a.child_tally, [&](auto& c) {
            io.t(c.bucket);
            io.u(c.failed);
            io.u(c.replacements);
          });
        },
        "a child tally belongs to no actor of the image");
  } else if constexpr (Io::loading) {
    // Before format 3 only the latest few failures were kept: their count is the best there is.
    for (auto& [id, a] : st.actors_)
      for (const FailureRecord& f : a.recent_failures)
        if (f.actor != a.id) st.tally_child(a, f.time, true);
  }
  // Format 4: the actors that have a hook holding their thread, and for how long.
  if (io.format() >= 4)
    io.sparse(
        st.actors_, [](const ActorRecord& a) { return a.busy != Duration::zero(); }, [&](auto& a) { io.d(a.busy); },
        "a busy time belongs to no actor of the image");
  // Format 5: the messages timers delivered (by their place among the recent messages), and the
  // firings whose message has not been seen yet.
  if (io.format() >= 5) {
    io.sparse_at(
        st.recent_messages_, [](const MessageRecord& m) { return m.timer != 0; }, [&](auto& m) { io.u(m.timer); },
        "a timer's message is not among the image's messages");
    io.entries(st.pending_ticks_, [&](auto& target, auto& tick) {
      io.id(target);
      io.u(tick.timer);
      io.t(tick.fired);
    });
  }
  // Format 6: the causes of the recent events that have one (by their place).
  if (io.format() >= 6)
    io.sparse_at(
        st.recent_events_, [](const Event& e) { return e.cause != 0; }, [&](auto& e) { io.u(e.cause); },
        "a cause belongs to no event of the image");
  // Format 7: the supervisors. The counts of the kinds that came with them (a list, so that kinds
  // added later are read the same way), what each actor is to its Supervisor, and the Supervisors.
  if (io.format() >= 7) {
    std::vector<std::uint64_t> later;
    if constexpr (!Io::loading) later.assign(st.by_kind_.begin() + kKindsBeforeFormat7, st.by_kind_.end());
    io.list(later, [&](auto& c) { io.u(c); });
    if constexpr (Io::loading) {
      if (later.size() > kEventKindCount - kKindsBeforeFormat7)
        io.fail("it counts more event kinds than there are");
      std::copy(later.begin(), later.end(), st.by_kind_.begin() + kKindsBeforeFormat7);
    }
    io.sparse(
        st.actors_,
        [](const ActorRecord& a) { return !a.child_id.empty() || a.restarts != 0 || a.replaces.is_valid(); },
        [&](auto& a) {
          io.s(a.child_id);
          io.u(a.restarts);
          io.id(a.replaces);
        },
        "a child's restart count belongs to no actor of the image");
    io.values(
        st.supervisors_, [](const SupervisorRecord& r) { return r.id; },
        [&](auto& r) {
          io.id(r.id);
          io.s(r.strategy);
          io.u(r.max_restarts);
          io.d(r.period);
          bool backoff = r.backoff.has_value();
          io.b(backoff);
          if constexpr (Io::loading) {
            if (backoff) r.backoff.emplace();
          }
          if (backoff) {
            io.d(r.backoff->min);
            io.d(r.backoff->max);
            io.d(r.backoff->reset);
          }
          io.list(r.children, [&](auto& c) {
            io.s(c.id);
            io.s(c.restart);
            io.s(c.shutdown);
            io.b(c.supervisor);
            io.id(c.actor);
          });
          io.s(r.specs);
          io.list(r.recent_restarts, [&](auto& t) { io.t(t); });
          io.u(r.total_restarts);
          io.opt_t(r.gave_up);
          io.s(r.gave_up_reason);
          io.u(r.gave_up_restarts);
        });
  }
  // Format 8: the bounded mailboxes, and whatever an actor's mailbox dropped or rejected (with its
  // history, point by point). Older images had none: unbounded, nothing lost.
  if (io.format() >= 8) {
    const auto lost = [](const ActorRecord::HistoryPoint& h) { return h.dropped != 0 || h.rejected != 0; };
    io.sparse(
        st.actors_,
        [&](const ActorRecord& a) {
          return a.mailbox_capacity != 0 || a.dropped != 0 || a.rejected != 0 ||
                 std::any_of(a.history.begin(), a.history.end(), lost);
        },
        [&](auto& a) {
          io.u(a.mailbox_capacity);
          io.e(a.overflow, 4);
          io.u(a.dropped);
          io.u(a.rejected);
          io.sparse_at(
              a.history, lost,
              [&](auto& h) {
                io.u(h.dropped);
                io.u(h.rejected);
              },
              "a mailbox's history point is past the actor's history");
        },
        "a mailbox belongs to no actor of the image");
  }
  // Format 9: the factories. Older images had none.
  if (io.format() >= 9) {
    io.values(
        st.factories_, [](const FactoryRecord& f) { return f.id; },
        [&](auto& f) {
          io.id(f.id);
          FactoryCounters::for_each(f, [&](auto& v) {
            // Format 9's factories did not retry.
            if (static_cast<const void*>(&v) == &f.retried && io.format() < 10) return;
            if constexpr (std::is_same_v<std::remove_const_t<std::remove_reference_t<decltype(v)>>, Duration>) {
              io.d(v);
            } else {
              io.u(v);
            }
          });
          io.list(f.latency_buckets, [&](auto& c) { io.u(c); });
          io.s(f.routing);
          io.u(f.pool_size);
          io.s(f.settings_text);
          if constexpr (Io::loading) f.settings = FactoryRecord::parse_settings(f.settings_text);
          io.t(f.configured);
          io.u(f.stuck_reports);
          io.list(f.recent_stuck, [&](auto& x) {
            io.t(x.time);
            io.id(x.worker);
            io.u(x.worker_id);
            io.s(x.key);
            io.d(x.running);
            io.b(x.killed);
          });
          io.list(f.history, [&](auto& h) {
            io.i(h.bucket);
            io.u(h.queue_depth);
            io.u(h.queue_max);
            io.u(h.busy_workers);
            io.u(h.workers);
            io.u(h.dispatched);
            io.u(h.completed);
            for (auto& d : h.discarded) io.u(d);
          });
        });
  }
}

std::string SystemState::serialize() const {
  Save io;
  io.out.append(kMagic, sizeof kMagic);
  io.u(kImageFormat);
  image_fields(io, *this);
  return std::move(io.out);
}

SystemState SystemState::deserialize(std::string_view bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw StateFormatError("not a SystemState keyframe image (it does not start with \"ASKF\")");
  Load probe(bytes.substr(sizeof kMagic), 0);
  const std::uint64_t format = probe.get();
  if (format > kImageFormat)
    throw StateFormatError("the keyframe image has format " + std::to_string(format) + ", but this build reads up to " +
                           std::to_string(kImageFormat) + ": open it with a newer Actorscope");
  Load io(bytes.substr(sizeof kMagic), format);
  (void)io.get();  // the format number, read above
  SystemState st;
  image_fields(io, st);
  if (!io.at_end()) io.fail("there are bytes after the end of the image");
  return st;
}

}  // namespace actorscope::observe
