// Format 1 of the recording schema, and the migration steps that lead to the current format.
#include "schema.hpp"

#include <actorscope/storage/recording_format.hpp>

#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace actorscope::storage {

namespace {

// Format 1. Times are nanoseconds: *_ns columns on the runtime's clock (steady, or virtual on the
// manual runtime), *_at columns on the wall clock since the Unix epoch. NULL means "not applicable"
// or the field's default (0, "", false). docs/RECORDING-FORMAT.md documents every column.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE sessions(
  id                INTEGER PRIMARY KEY,
  started_at        INTEGER NOT NULL,
  ended_at          INTEGER,
  updated_at        INTEGER NOT NULL,
  runtime           TEXT NOT NULL,
  threads           INTEGER NOT NULL,
  scenario          TEXT,
  seed              INTEGER,
  detail            TEXT NOT NULL,
  sample_every      INTEGER NOT NULL,
  stats_interval_ns INTEGER NOT NULL,
  keyframe_every    INTEGER NOT NULL,
  start_t_ns        INTEGER NOT NULL,
  end_t_ns          INTEGER,
  events_recorded   INTEGER NOT NULL DEFAULT 0,
  events_dropped    INTEGER NOT NULL DEFAULT 0,
  recorder          TEXT NOT NULL
);
CREATE TABLE actors(
  session_id  INTEGER NOT NULL REFERENCES sessions(id),
  actor_id    INTEGER NOT NULL,
  name        TEXT,
  type_name   TEXT,
  parent_id   INTEGER,
  thread      INTEGER NOT NULL DEFAULT 0,
  spawned_ns  INTEGER,
  stopped_ns  INTEGER,
  exit_kind   TEXT,
  exit_reason TEXT,
  PRIMARY KEY (session_id, actor_id)
) WITHOUT ROWID;
CREATE TABLE events(
  session_id   INTEGER NOT NULL REFERENCES sessions(id),
  seq          INTEGER NOT NULL,
  t_ns         INTEGER NOT NULL,
  kind         TEXT NOT NULL,
  actor_id     INTEGER,
  peer_id      INTEGER,
  lane         TEXT,
  message_type TEXT,
  queue_ns     INTEGER,
  handle_ns    INTEGER,
  detail       TEXT,
  name         TEXT,
  trace        INTEGER,
  failed       INTEGER,
  thread       INTEGER,
  period_ns    INTEGER,
  scheduled_ns INTEGER,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE stats_polls(
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  poll       INTEGER NOT NULL,
  t_ns       INTEGER NOT NULL,
  after_seq  INTEGER NOT NULL,
  dropped    INTEGER NOT NULL,
  PRIMARY KEY (session_id, poll)
) WITHOUT ROWID;
CREATE TABLE actor_stats(
  session_id    INTEGER NOT NULL REFERENCES sessions(id),
  poll          INTEGER NOT NULL,
  actor_id      INTEGER NOT NULL,
  bucket_ns     INTEGER NOT NULL,
  handled       INTEGER NOT NULL,
  sent          INTEGER NOT NULL,
  mailbox_depth INTEGER NOT NULL,
  mailbox_max   INTEGER NOT NULL,
  queue_ns_sum  INTEGER NOT NULL,
  handle_ns_sum INTEGER NOT NULL
);
CREATE INDEX actor_stats_by_poll ON actor_stats(session_id, poll);
CREATE TABLE keyframes(
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  seq        INTEGER NOT NULL,
  poll       INTEGER NOT NULL,
  t_ns       INTEGER NOT NULL,
  state      BLOB NOT NULL,
  PRIMARY KEY (session_id, seq, poll)
);
)sql";

// Format 2: actor_stats.timed, the messages whose times are in the bucket's sums (at `sampled`,
// only the sampled messages are timed now). In format 1 every message was timed at `sampled` and
// `full`, and none at `lifecycle`, so that is what older rows get.
constexpr const char* kMigrationV1toV2 = R"sql(
ALTER TABLE actor_stats ADD COLUMN timed INTEGER NOT NULL DEFAULT 0;
UPDATE actor_stats SET timed = handled
  WHERE (SELECT detail FROM sessions WHERE sessions.id = actor_stats.session_id) <> 'lifecycle';
)sql";

// Format 3: actor_stats.busy_ns, how long the hook running at the poll had held the actor's thread
// (observe::StatsSample::busy). Older recordings did not measure it: 0.
constexpr const char* kMigrationV2toV3 = R"sql(
ALTER TABLE actor_stats ADD COLUMN busy_ns INTEGER NOT NULL DEFAULT 0;
)sql";

// Format 4: events.cause, the trace of the message a sender was handling when it sent a message
// (observe::Event::cause), so that a failure can be followed back through the messages that led to
// it. Older recordings did not record it: NULL, which readers tell apart from "no cause".
constexpr const char* kMigrationV3toV4 = R"sql(
ALTER TABLE events ADD COLUMN cause INTEGER;
)sql";

// Format 5: the Supervisor's events (supervisor_configured, child_restarted, supervisor_gave_up:
// new kinds, which older builds cannot read), and per actor the child spec it runs for its
// Supervisor (actors.child_id) and how often that child had been restarted when this actor was
// made (actors.restarts). Older recordings had no Supervisor: NULL and 0.
constexpr const char* kMigrationV4toV5 = R"sql(
ALTER TABLE actors ADD COLUMN child_id TEXT;
ALTER TABLE actors ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;
)sql";

// Format 6: bounded mailboxes. A new event kind (mailbox_configured: an actor's capacity and
// overflow policy, which older builds cannot read); per actor its capacity (actors.mailbox_capacity,
// 0 for unbounded) and policy (actors.overflow, NULL for unbounded); and per statistics bucket the
// messages its mailbox dropped and the sends it rejected (actor_stats.dropped, rejected). Older
// recordings had no bounded mailbox: unbounded, nothing dropped or rejected.
constexpr const char* kMigrationV5toV6 = R"sql(
ALTER TABLE actors ADD COLUMN mailbox_capacity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE actors ADD COLUMN overflow TEXT;
ALTER TABLE actor_stats ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE actor_stats ADD COLUMN rejected INTEGER NOT NULL DEFAULT 0;
)sql";

// Format 7: factories (factory.hpp). Two new event kinds (factory_configured, worker_stuck: older
// builds cannot read them), and a factory_stats table: one row per factory per statistics poll, its
// bucket of observe::FactorySample (the columns in FactoryCounters::for_each order, the job latency
// histogram's bucket counts as a blob of LEB128 varints, NULL when none). Older recordings had no
// factories: the table is made empty.
constexpr const char* kMigrationV6toV7 = R"sql(
CREATE TABLE factory_stats(
  session_id             INTEGER NOT NULL REFERENCES sessions(id),
  poll                   INTEGER NOT NULL,
  factory_id             INTEGER NOT NULL,
  bucket_ns              INTEGER NOT NULL,
  dispatched             INTEGER NOT NULL,
  completed              INTEGER NOT NULL,
  discarded_ttl          INTEGER NOT NULL,
  discarded_load_shed    INTEGER NOT NULL,
  discarded_shutdown     INTEGER NOT NULL,
  discarded_rate_limited INTEGER NOT NULL,
  worker_restarts        INTEGER NOT NULL,
  stuck                  INTEGER NOT NULL,
  latency_ns_sum         INTEGER NOT NULL,
  queue_depth            INTEGER NOT NULL,
  queue_max              INTEGER NOT NULL,
  busy_workers           INTEGER NOT NULL,
  workers                INTEGER NOT NULL,
  queue_limit            INTEGER NOT NULL,
  latency_buckets        BLOB
);
CREATE INDEX factory_stats_by_poll ON factory_stats(session_id, poll);
)sql";

// Format 8: factory_stats.retried, the jobs a factory ran again because their worker failed or was
// killed while running them (JobOptions::retry). Format 7's factories could not retry: 0.
constexpr const char* kMigrationV7toV8 = R"sql(
ALTER TABLE factory_stats ADD COLUMN retried INTEGER NOT NULL DEFAULT 0;
)sql";

// Indexes that make reading faster without changing what a format holds, so they need no format
// version: the recorder makes them in every file it writes (new or appended to), and readers use
// them when they are there and do the same work more slowly when not (a reader never changes a
// file). A new one is added here, never in a migration step; docs/RECORDING-FORMAT.md lists them.
//
// events_notable: the rare events (everything but messages, and messages whose handler threw),
// in seq order with what the timeline reads of them, so that SessionReader::density, markers and
// adjacent_event read a few thousand index entries instead of millions of messages, and no table
// row unless they return it. Partial, so the recorder pays for it only on those rows.
// SessionReader's queries repeat its WHERE word for word.
constexpr const char* kReadIndexes = R"sql(
CREATE INDEX IF NOT EXISTS events_notable ON events(session_id, seq, t_ns, kind, failed, actor_id, peer_id, name)
  WHERE kind NOT IN ('message_sent', 'message_handled') OR failed = 1;
)sql";

struct Migration {
  int from;
  int to;
  const char* sql;
};

// Each step takes a recording from one format to the next; the recorder runs the steps it needs
// in one transaction. A new format appends a step here (and never edits an old one).
constexpr Migration kMigrations[] = {
    {0, 1, kSchemaV1},        {1, 2, kMigrationV1toV2}, {2, 3, kMigrationV2toV3},
    {3, 4, kMigrationV3toV4}, {4, 5, kMigrationV4toV5}, {5, 6, kMigrationV5toV6},
    {6, 7, kMigrationV6toV7}, {7, 8, kMigrationV7toV8},
};
static_assert(kMigrations[std::size(kMigrations) - 1].to == kRecordingFormatVersion,
              "the last migration must lead to the current format");

/// A table's name and its columns' names.
using Structure = std::map<std::string, std::set<std::string>>;

Structure read_structure(Database& db) {
  Structure out;
  Statement tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  while (tables.step()) out.emplace(std::string(tables.text(0)), std::set<std::string>{});
  for (auto& [table, columns] : out) {
    Statement cols = db.prepare("SELECT name FROM pragma_table_info(?)");
    cols.bind(1, std::string_view(table));
    while (cols.step()) columns.emplace(cols.text(0));
  }
  return out;
}

/// The tables and columns of format `version`, as its migrations make them (in a database in
/// memory, once per format and process): the one description of a format is its DDL.
const Structure& structure_of(int version) {
  static std::mutex m;
  static std::map<int, Structure> made;
  std::lock_guard lk(m);
  if (auto it = made.find(version); it != made.end()) return it->second;
  Database mem(":memory:", Database::Mode::create, 0);
  for (const Migration& step : kMigrations)
    if (step.to <= version) mem.exec(step.sql);
  return made.emplace(version, read_structure(mem)).first->second;
}

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

}  // namespace

RecordingError damaged_error(const std::filesystem::path& file, std::string_view what) {
  std::string m = quoted(file);
  m += " is damaged: ";
  m += what;
  m += "; record the session again or restore a copy";
  return {RecordingError::Kind::corrupt, file, m};
}

bool check_file_header(const std::filesystem::path& file) {
  using Kind = RecordingError::Kind;
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status))
    throw RecordingError(Kind::cannot_open, file,
                         "cannot open " + quoted(file) + ": there is no such file; check the name and folder");
  if (std::filesystem::is_directory(status))
    throw RecordingError(Kind::cannot_open, file,
                         "cannot open " + quoted(file) + ": it is a folder, not a recording file");
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  if (ec || !in)
    throw RecordingError(Kind::cannot_open, file,
                         "cannot open " + quoted(file) + ": it cannot be read; check its permissions");
  if (size == 0) return false;
  unsigned char h[100] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  static constexpr char kMagic[16] = "SQLite format 3";  // with its terminating NUL, as in the file
  if (static_cast<std::size_t>(in.gcount()) < sizeof kMagic || std::memcmp(h, kMagic, sizeof kMagic) != 0)
    throw RecordingError(Kind::not_sqlite, file,
                         quoted(file) +
                             " is not an SQLite database, so it is not an Actorscope recording (it does not start "
                             "with the SQLite header); check the file name, or make a recording with 'actorscope "
                             "record'");
  if (in.gcount() < static_cast<std::streamsize>(sizeof h))
    throw damaged_error(file,
                        "it ends inside the SQLite header (" + std::to_string(size) + " bytes): it was truncated");
  std::uint64_t page_size = (std::uint64_t{h[16]} << 8) | h[17];
  if (page_size == 1) page_size = 65536;
  const std::uint32_t pages = be32(h + 28);
  // A WAL-mode file with its log beside it is being written (or was, by a process that died):
  // its size lags behind its header while a checkpoint copies pages into it (the header page
  // goes first), so a reader following a recording would take it for truncated. Its last pages
  // may be in the log anyway; SQLite reports a short read if one is really missing.
  std::filesystem::path wal = file;
  wal += "-wal";
  const bool wal_live = (h[18] == 2 || h[19] == 2) && std::filesystem::exists(wal, ec);
  // The header's page count is trustworthy only when "version-valid-for" matches the change counter.
  if (!wal_live && pages != 0 && be32(h + 92) == be32(h + 24) && size < page_size * pages)
    throw damaged_error(file, "it is shorter than its header says (" + std::to_string(size) + " of " +
                                  std::to_string(page_size * pages) +
                                  " bytes): it was truncated, e.g. by an interrupted copy");
  return true;
}

void check_structure(Database& db, const std::filesystem::path& file, int version) {
  const Structure& expected = structure_of(version);
  const Structure found = read_structure(db);
  const std::string format = "a recording in format " + std::to_string(version);
  for (const auto& [table, columns] : expected) {
    const auto it = found.find(table);
    if (it == found.end()) throw damaged_error(file, "it is " + format + ", but its " + table + " table is missing");
    for (const std::string& column : columns)
      if (!it->second.contains(column))
        throw damaged_error(file, "it is " + format + ", but its " + table + " table has no " + column + " column");
  }
}

void check_appendable(const std::filesystem::path& file, int busy_timeout_ms) {
  if (!check_file_header(file)) return;  // empty: SQLite makes it a database
  try {
    Database db(file, Database::Mode::read_only, busy_timeout_ms);
    const std::int64_t app = db.scalar("PRAGMA application_id").value_or(0);
    if (app != 0 && app != kApplicationId)
      throw not_a_recording_error(file, "its application_id says that another program made it");
    const auto version = read_format_version(db, file);
    if (!version) {
      if (db.scalar("SELECT count(*) FROM sqlite_schema").value_or(0) != 0)
        throw not_a_recording_error(file, "it has tables, but no meta table with a format_version");
      return;  // an empty database
    }
    if (*version > kRecordingFormatVersion) throw too_new_error(file, *version);
    check_structure(db, file, *version);
  } catch (const SqliteError& e) {
    throw recording_error(file, e);
  }
}

RecordingError too_new_error(const std::filesystem::path& file, int version) {
  std::string m = quoted(file);
  m += " is a recording in format ";
  m += std::to_string(version);
  m += ", but this build of Actorscope reads formats up to ";
  m += std::to_string(kRecordingFormatVersion);
  m += ": open it with a newer Actorscope";
  return {RecordingError::Kind::too_new, file, m};
}

RecordingError not_a_recording_error(const std::filesystem::path& file, std::string_view why) {
  std::string m = quoted(file);
  m += " is an SQLite database but not an Actorscope recording (";
  m += why;
  m += "); check the file name, or make a recording with 'actorscope record'";
  return {RecordingError::Kind::not_a_recording, file, m};
}

std::optional<int> read_format_version(Database& db, const std::filesystem::path& file) {
  if (db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").value_or(0) == 0)
    return std::nullopt;
  Statement s = db.prepare("SELECT value FROM meta WHERE key = 'format_version'");
  if (!s.step()) return std::nullopt;
  const std::string_view text = s.text(0);
  int version = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc{} || ptr != text.data() + text.size() || version < 1) {
    std::string m = quoted(file);
    m += " is damaged: its meta.format_version is \"";
    m += text;
    m += "\", not a format number; record the session again or restore a copy";
    throw RecordingError(RecordingError::Kind::corrupt, file, m);
  }
  return version;
}

void create_or_migrate(Database& db, const std::filesystem::path& file) {
  db.exec("BEGIN IMMEDIATE");
  try {
    int version = 0;
    if (auto v = read_format_version(db, file)) {
      version = *v;
    } else if (db.scalar("SELECT count(*) FROM sqlite_schema").value_or(0) != 0) {
      throw not_a_recording_error(file, "it has tables, but no meta table with a format_version");
    }
    if (version > kRecordingFormatVersion) throw too_new_error(file, version);
    if (version > 0) check_structure(db, file, version);  // a damaged file is refused, not migrated
    for (const Migration& m : kMigrations) {
      if (m.from < version) continue;
      db.exec(m.sql);
      version = m.to;
    }
    db.exec(kReadIndexes);
    if (db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").value_or(0) !=
        0) {
      Statement set = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
      const std::string v = std::to_string(version);
      set.bind(1, std::string_view("format_version"));
      set.bind(2, std::string_view(v));
      set.run();
      set.bind(1, std::string_view("application"));
      set.bind(2, std::string_view("actorscope"));
      set.run();
    }
    db.exec(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str());
    db.exec("COMMIT");
  } catch (...) {
    try {
      db.exec("ROLLBACK");
    } catch (...) {
    }
    throw;
  }
}

}  // namespace actorscope::storage
