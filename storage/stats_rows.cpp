// The actor_stats row <-> observe::StatsSample. The counters' columns are in the order of
// ActorCounters::for_each (the table's own order differs: `timed` and `busy_ns` came later, and
// `dropped` and `rejected` after them).
#include "stats_rows.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope::storage {

namespace {

/// A counter as a column's value and back: counts as integers, times in nanoseconds.
std::int64_t column_value(std::uint64_t v) {
  return static_cast<std::int64_t>(v);
}
std::int64_t column_value(Duration v) {
  return observe::to_ns(v);
}
void from_column(std::uint64_t& v, std::int64_t c) {
  v = static_cast<std::uint64_t>(c);
}
void from_column(Duration& v, std::int64_t c) {
  v = observe::duration_from_ns(c);
}

constexpr int kCounters = [] {
  int n = 0;
  ActorCounters c;
  ActorCounters::for_each(c, [&](auto&) { ++n; });
  return n;
}();
static_assert(kCounters == 9, "a counter is new in ActorCounters: give it a column (a new format) here");

constexpr int kFactoryCounters = [] {
  int n = 0;
  FactoryCounters c;
  FactoryCounters::for_each(c, [&](auto&) { ++n; });
  return n;
}();
static_assert(kFactoryCounters == 15,
              "a counter is new in FactoryCounters: give it a column of factory_stats (a new format) here");

/// The latency buckets as LEB128 varints, one per bucket from index 0 (empty: none).
std::string encode_buckets(const std::vector<std::uint64_t>& buckets) {
  std::string out;
  for (std::uint64_t v : buckets) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  return out;
}

std::vector<std::uint64_t> decode_buckets(std::string_view blob) {
  std::vector<std::uint64_t> out;
  std::uint64_t v = 0;
  unsigned shift = 0;
  for (char ch : blob) {
    const auto byte = static_cast<unsigned char>(ch);
    if (shift > 63) throw std::invalid_argument("a factory_stats row's latency_buckets has a number too long");
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      out.push_back(v);
      v = 0;
      shift = 0;
    } else {
      shift += 7;
    }
  }
  if (shift != 0) throw std::invalid_argument("a factory_stats row's latency_buckets ends inside a number");
  // (The histogram of a 64-bit value has fewer than 500 buckets.)
  if (out.size() > 4096) throw std::invalid_argument("a factory_stats row's latency_buckets has too many buckets");
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

}  // namespace

const char* insert_sample_sql() noexcept {
  return "INSERT INTO actor_stats(session_id, poll, actor_id, bucket_ns, "
         "handled, sent, mailbox_depth, mailbox_max, timed, queue_ns_sum, handle_ns_sum, dropped, rejected, "
         "busy_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
}

void bind_sample(Statement& st, std::int64_t session, std::int64_t poll, const observe::StatsSample& x) {
  st.bind(1, session);
  st.bind(2, poll);
  st.bind(3, static_cast<std::int64_t>(x.actor.pid));
  st.bind(4, observe::to_ns(x.end));
  int column = 5;
  ActorCounters::for_each(x, [&](const auto& counter) { st.bind(column++, column_value(counter)); });
  st.bind(column, observe::to_ns(x.busy));
}

// Format 1 has no `timed`: every message was timed then, except at `lifecycle`, where none was (the
// migration to format 2 fills it in the same way). Formats 1 and 2 have no `busy_ns`: it was not
// measured (0, as the migration to format 3 fills it). Formats 1 to 5 have no `dropped` and
// `rejected`: there were no bounded mailboxes, so nothing was dropped or rejected (0, as the
// migration to format 6 fills them).
const char* sample_columns(int format) noexcept {
  if (format >= 6)
    return "actor_id, bucket_ns, "
           "handled, sent, mailbox_depth, mailbox_max, timed, queue_ns_sum, handle_ns_sum, dropped, rejected, "
           "busy_ns";
  if (format >= 3)
    return "actor_id, bucket_ns, "
           "handled, sent, mailbox_depth, mailbox_max, timed, queue_ns_sum, handle_ns_sum, 0, 0, busy_ns";
  if (format == 2)
    return "actor_id, bucket_ns, "
           "handled, sent, mailbox_depth, mailbox_max, timed, queue_ns_sum, handle_ns_sum, 0, 0, 0";
  return "actor_id, bucket_ns, "
         "handled, sent, mailbox_depth, mailbox_max, "
         "CASE WHEN (SELECT detail FROM sessions WHERE sessions.id = actor_stats.session_id) = 'lifecycle' "
         "THEN 0 ELSE handled END, "
         "queue_ns_sum, handle_ns_sum, 0, 0, 0";
}

observe::StatsSample read_sample(const Statement& s, int first) {
  observe::StatsSample x;
  x.actor = {0, static_cast<std::uint64_t>(s.int64(first))};
  x.end = observe::time_from_ns(s.int64(first + 1));
  int column = first + 2;
  ActorCounters::for_each(x, [&](auto& counter) { from_column(counter, s.int64(column++)); });
  x.busy = observe::duration_from_ns(s.int64(column));
  return x;
}

const char* insert_factory_sample_sql() noexcept {
  return "INSERT INTO factory_stats(session_id, poll, factory_id, bucket_ns, dispatched, completed, discarded_ttl, "
         "discarded_load_shed, discarded_shutdown, discarded_rate_limited, worker_restarts, stuck, latency_ns_sum, "
         "queue_depth, queue_max, busy_workers, workers, queue_limit, retried, latency_buckets) "
         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
}

void insert_factory_sample(Statement& st, std::int64_t session, std::int64_t poll, const observe::FactorySample& x) {
  st.bind(1, session);
  st.bind(2, poll);
  st.bind(3, static_cast<std::int64_t>(x.factory.pid));
  st.bind(4, observe::to_ns(x.end));
  int column = 5;
  FactoryCounters::for_each(x, [&](const auto& counter) { st.bind(column++, column_value(counter)); });
  const std::string blob = encode_buckets(x.latency_buckets);  // (bound, not copied: alive until run)
  if (blob.empty()) {
    st.bind_null(column);
  } else {
    st.bind_blob(column, blob);
  }
  st.run();
}

// Format 7 has no `retried`: its factories could not retry a job, so none was (0, as the migration
// to format 8 fills it).
const char* factory_sample_columns(int format) noexcept {
  if (format >= 8)
    return "factory_id, bucket_ns, dispatched, completed, discarded_ttl, discarded_load_shed, discarded_shutdown, "
           "discarded_rate_limited, worker_restarts, stuck, latency_ns_sum, queue_depth, queue_max, busy_workers, "
           "workers, queue_limit, retried, latency_buckets";
  return "factory_id, bucket_ns, dispatched, completed, discarded_ttl, discarded_load_shed, discarded_shutdown, "
         "discarded_rate_limited, worker_restarts, stuck, latency_ns_sum, queue_depth, queue_max, busy_workers, "
         "workers, queue_limit, 0, latency_buckets";
}

observe::FactorySample read_factory_sample(const Statement& s, int first) {
  observe::FactorySample x;
  x.factory = {0, static_cast<std::uint64_t>(s.int64(first))};
  x.end = observe::time_from_ns(s.int64(first + 1));
  int column = first + 2;
  FactoryCounters::for_each(x, [&](auto& counter) { from_column(counter, s.int64(column++)); });
  x.latency_buckets = decode_buckets(s.blob(column));
  return x;
}

}  // namespace actorscope::storage
