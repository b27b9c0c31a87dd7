// How an observe::Event becomes a row of the events table and back, exactly: the recorder and the
// reader share this one mapping, so a replayed event equals the recorded one field for field.
#pragma once

#include "database.hpp"

#include <actorscope/observe/event.hpp>
#include <actorscope/observe/observer.hpp>

#include <string>

namespace actorscope::storage {

/// Parameters per event row.
inline constexpr int kEventParams = 18;

/// The INSERT of `rows` event rows in one statement (rows x kEventParams parameters). Inserting
/// many rows per statement halves the recorder's cost per event: most of SQLite's work per
/// statement is starting and finishing it, not storing a row.
std::string insert_events_sql(int rows);

/// The columns read_event expects from a recording of `format`, in order (prefix them with
/// "SELECT " and add the FROM). Formats before 4 have no `cause`: it reads as 0.
const char* event_columns(int format) noexcept;

/// Binds the kEventParams parameters of one row, after the first `offset` parameters. Text is not
/// copied: `e` must outlive the step.
void bind_event(Statement& insert, int offset, std::int64_t session, const observe::Event& e);

/// Reads the current row of a statement selecting kEventColumns. Throws std::invalid_argument
/// (naming the column) for a value format 1 does not have.
observe::Event read_event(const Statement& row);

}  // namespace actorscope::storage
