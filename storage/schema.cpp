// Format 1 of the recording schema, and the migration steps that lead to the current format.
#include "schema.hpp"

#include <actorscope/storage/recording_format.hpp>

#include <charconv>
#include <string>

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

struct Migration {
  int from;
  int to;
  const char* sql;
};

// Each step takes a recording from one format to the next; the recorder runs the steps it needs
// in one transaction. A new format appends a step here (and never edits an old one).
constexpr Migration kMigrations[] = {
    {0, 1, kSchemaV1},
    {1, 2, kMigrationV1toV2},
    {2, 3, kMigrationV2toV3},
};
static_assert(kMigrations[std::size(kMigrations) - 1].to == kRecordingFormatVersion,
              "the last migration must lead to the current format");

}  // namespace

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
    for (const Migration& m : kMigrations) {
      if (m.from < version) continue;
      db.exec(m.sql);
      version = m.to;
    }
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
