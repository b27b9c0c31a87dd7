// Text for numbers, durations, rates and actor ids, written the same way in every view.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/runtime.hpp>

#include <QString>

#include <cstdint>

namespace actorscope::views {

/// "850 ns", "12.3 µs", "4.56 ms", "1.20 s", "2 min 05 s".
QString formatNanos(std::uint64_t ns);
QString formatDuration(Duration d);
/// A signed duration: "-3.2 ms" when negative.
QString formatSignedDuration(Duration d);
/// "0", "950", "12.4k", "3.10M".
QString formatCount(double n);
/// "12.4k/s".
QString formatRate(double perSecond);
/// Seconds since `origin`: "12.345 s".
QString formatSince(TimePoint t, TimePoint origin);
/// "0.42": how Erlang and ractor print a pid.
QString formatActorId(ActorId id);
/// Parses "0.42" or "42" back into an id; an invalid id when it is neither.
ActorId parseActorId(const QString& text);
/// A runtime host: "1", or "—" while the runtime has not chosen it (observe::no_thread).
QString formatHost(std::uint32_t thread);

}  // namespace actorscope::views
