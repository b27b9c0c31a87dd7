// Log records from actors (Context::log) and the sink a System sends them to.
#pragma once

#include <actorscope/actor_id.hpp>

#include <functional>
#include <string_view>

namespace actorscope {

struct LogRecord {
  ActorId actor;               ///< invalid for messages from the engine itself
  std::string_view name;       ///< the actor's registered name, or ""
  std::string_view type_name;  ///< the actor's C++ type
  std::string_view text;
};

/// Called on the logging actor's thread; it must be thread-safe. The default sink writes one
/// line per record to standard error: "[0.3 counter] total = 5".
using LogSink = std::function<void(const LogRecord&)>;

}  // namespace actorscope
