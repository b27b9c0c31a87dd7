// How an observe::StatsSample becomes a row of the actor_stats table and back: the recorder and
// the reader share this one mapping (as they share event_rows for events), and its counters are
// bound and read through ActorCounters::for_each, the one list of them.
#pragma once

#include "database.hpp"

#include <actorscope/observe/system_state.hpp>

#include <cstdint>

namespace actorscope::storage {

/// The INSERT of one actor_stats row (bind it with bind_sample).
const char* insert_sample_sql() noexcept;

/// Binds the parameters of one row: the session, the poll's number, then the sample.
void bind_sample(Statement& insert, std::int64_t session, std::int64_t poll, const observe::StatsSample& x);

/// The columns read_sample expects from a recording of `format`, in order (put them after
/// "SELECT " and whatever the query reads first, and add the FROM actor_stats).
const char* sample_columns(int format) noexcept;

/// Reads a sample from the current row, whose sample_columns begin at column `first`.
observe::StatsSample read_sample(const Statement& row, int first);

/// The INSERT of one factory_stats row (the current format; run it with insert_factory_sample).
const char* insert_factory_sample_sql() noexcept;
/// Binds the parameters of one row (the session, the poll's number, then the sample) and runs it.
void insert_factory_sample(Statement& insert, std::int64_t session, std::int64_t poll,
                           const observe::FactorySample& x);
/// The columns read_factory_sample expects from a recording of `format` (7 or later), in order (put
/// them after "SELECT " and whatever the query reads first, and add the FROM factory_stats).
const char* factory_sample_columns(int format) noexcept;
/// Reads a factory sample from the current row, whose factory_sample_columns begin at `first`.
observe::FactorySample read_factory_sample(const Statement& row, int first);

}  // namespace actorscope::storage
