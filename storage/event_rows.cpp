// The events table row <-> observe::Event. The rule: a column is NULL when the field has its
// default value (0, "", false, the message lane), except where the kind makes the field part of
// what happened (a message's lane, a handled message's outcome, a spawn's thread): those are always
// written, so that the table reads well in the sqlite3 shell.
#include "event_rows.hpp"

#include <stdexcept>

namespace actorscope::storage {

namespace {
using observe::EventKind;

bool is_message(EventKind k) {
  return k == EventKind::message_sent || k == EventKind::message_handled;
}
bool has_thread(EventKind k) {
  return k == EventKind::spawned || k == EventKind::started || k == EventKind::message_handled ||
         k == EventKind::runtime_info || k == EventKind::mailbox_configured;
}
bool is_timer(EventKind k) {
  return k == EventKind::timer_started || k == EventKind::timer_fired || k == EventKind::timer_cancelled;
}
}  // namespace

std::string insert_events_sql(int rows) {
  std::string sql =
      "INSERT INTO events(session_id, seq, t_ns, kind, actor_id, peer_id, lane, message_type, queue_ns, "
      "handle_ns, "
      "detail, name, trace, failed, thread, period_ns, scheduled_ns, cause) VALUES ";
  for (int r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ",(";
    for (int c = 0; c < kEventParams; ++c) sql += c == 0 ? "?" : ",?";
    sql += ')';
  }
  return sql;
}

void bind_event(Statement& st, int offset, std::int64_t session, const observe::Event& e) {
  // Parameter i of this row is offset + i (1-based).
  struct Row {
    Statement& st;
    int offset;
    void bind(int i, std::int64_t v) { st.bind(offset + i, v); }
    void bind(int i, std::string_view v) { st.bind(offset + i, v); }
    void bind_null(int i) { st.bind_null(offset + i); }
    void bind_or_null(int i, std::int64_t v) { st.bind_or_null(offset + i, v); }
    void bind_or_null(int i, std::string_view v) { st.bind_or_null(offset + i, v); }
  } s{st, offset};
  s.bind(1, session);
  s.bind(2, static_cast<std::int64_t>(e.seq));
  s.bind(3, observe::to_ns(e.time));
  s.bind(4, observe::to_string(e.kind));
  s.bind_or_null(5, static_cast<std::int64_t>(e.actor.pid));
  s.bind_or_null(6, static_cast<std::int64_t>(e.peer.pid));
  if (is_message(e.kind) || e.lane != observe::Lane::message) {
    s.bind(7, observe::to_string(e.lane));
  } else {
    s.bind_null(7);
  }
  s.bind_or_null(8, e.message_type);
  if (e.timed) {
    s.bind(9, observe::to_ns(e.queue));
    s.bind(10, observe::to_ns(e.handling));
  } else {
    s.bind_null(9);
    s.bind_null(10);
  }
  s.bind_or_null(11, std::string_view(e.text));
  s.bind_or_null(12, std::string_view(e.name));
  s.bind_or_null(13, static_cast<std::int64_t>(e.trace));
  if (e.kind == EventKind::message_handled || e.failed) {
    s.bind(14, e.failed ? 1 : 0);
  } else {
    s.bind_null(14);
  }
  if (has_thread(e.kind)) {
    s.bind(15, static_cast<std::int64_t>(e.thread));
  } else {
    s.bind_or_null(15, static_cast<std::int64_t>(e.thread));
  }
  if (e.kind == EventKind::timer_started) {
    s.bind(16, observe::to_ns(e.period));
  } else {
    s.bind_or_null(16, observe::to_ns(e.period));
  }
  if (is_timer(e.kind) && e.kind != EventKind::timer_cancelled) {
    s.bind(17, observe::to_ns(e.scheduled));
  } else if (e.scheduled != TimePoint{}) {
    s.bind(17, observe::to_ns(e.scheduled));
  } else {
    s.bind_null(17);
  }
  s.bind_or_null(18, static_cast<std::int64_t>(e.cause));
}

const char* event_columns(int format) noexcept {
  return format >= 4 ? "seq, t_ns, kind, actor_id, peer_id, lane, message_type, queue_ns, handle_ns, detail, name, "
                       "trace, failed, thread, period_ns, scheduled_ns, cause"
                     : "seq, t_ns, kind, actor_id, peer_id, lane, message_type, queue_ns, handle_ns, detail, name, "
                       "trace, failed, thread, period_ns, scheduled_ns, NULL";
}

observe::Event read_event(const Statement& r) {
  observe::Event e;
  e.seq = static_cast<std::uint64_t>(r.int64(0));
  e.time = observe::time_from_ns(r.int64(1));
  const std::string_view kind = r.text(2);
  const auto k = observe::event_kind_from_string(kind);
  if (!k)
    throw std::invalid_argument("an event has kind \"" + std::string(kind) +
                                "\", which is not an event kind");
  e.kind = *k;
  e.actor = {0, static_cast<std::uint64_t>(r.int64(3))};
  e.peer = {0, static_cast<std::uint64_t>(r.int64(4))};
  if (!r.is_null(5)) {
    const std::string_view lane = r.text(5);
    const auto l = observe::lane_from_string(lane);
    if (!l)
      throw std::invalid_argument("an event has lane \"" + std::string(lane) + "\", which is not a lane");
    e.lane = *l;
  }
  e.message_type = observe::intern(r.text(6));
  if (!r.is_null(8)) {
    e.timed = true;
    e.queue = observe::duration_from_ns(r.int64(7));
    e.handling = observe::duration_from_ns(r.int64(8));
  }
  e.text = std::string(r.text(9));
  e.name = std::string(r.text(10));
  e.trace = static_cast<std::uint64_t>(r.int64(11));
  e.failed = r.int64(12) != 0;
  e.thread = static_cast<std::uint32_t>(r.int64(13));
  e.period = observe::duration_from_ns(r.int64(14));
  if (!r.is_null(15)) e.scheduled = observe::time_from_ns(r.int64(15));
  e.cause = static_cast<std::uint64_t>(r.int64(16));
  return e;
}

}  // namespace actorscope::storage
