// The factory's non-template parts: the texts of its errors and reports.
#include <actorscope/detail/core_access.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/factory.hpp>

#include <chrono>
#include <stdexcept>

namespace actorscope {

std::string_view to_string(Routing r) noexcept {
  switch (r) {
    case Routing::key_persistent:
      return "key_persistent";
    case Routing::queuer:
      return "queuer";
    case Routing::sticky_queuer:
      return "sticky_queuer";
    case Routing::round_robin:
      return "round_robin";
    case Routing::custom_hash:
      return "custom_hash";
  }
  return "unknown";
}

std::string_view to_string(DiscardMode mode) noexcept {
  return mode == DiscardMode::oldest ? "oldest" : "newest";
}

namespace detail {

namespace {
std::string ms(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}
}  // namespace

std::string factory_settings_problem(const FactorySettings& s, FactoryError::Kind& kind) {
  kind = FactoryError::Kind::invalid_settings;
  if (s.workers && *s.workers == 0) {
    kind = FactoryError::Kind::no_workers;
    return "a factory needs at least one worker: resize it to 1 or more (to stop it, drain or stop it)";
  }
  if (s.workers && *s.workers > kMaxFactoryWorkers) {
    kind = FactoryError::Kind::too_many_workers;
    return "a factory may have at most " + std::to_string(kMaxFactoryWorkers) + " workers, not " +
           std::to_string(*s.workers);
  }
  if (s.discard && s.discard->kind == DiscardSettings::Kind::dynamic && !s.discard->update)
    return "DiscardSettings::dynamic needs its update function, which gives the limit anew every poll";
  if (s.rate_limit && s.rate_limit->jobs > 0 && s.rate_limit->per <= Duration::zero())
    return "RateLimit::per must be positive when RateLimit::jobs is set (say 100 jobs per 1 s)";
  if (s.dead_man && s.dead_man->detection_timeout < Duration::zero())
    return "DeadManSwitch::detection_timeout cannot be negative (zero turns the switch off)";
  return {};
}

std::string describe_settings(const DiscardSettings& discard, std::size_t priority_levels,
                              const DeadManSwitch& dead_man, const RateLimit& rate, bool draining) {
  std::string t = priority_levels == 0 ? "queue\tfifo" : "queue\tpriority\t" + std::to_string(priority_levels);
  switch (discard.kind) {
    case DiscardSettings::Kind::none:
      t += "\ndiscard\tnone";
      break;
    case DiscardSettings::Kind::static_limit:
    case DiscardSettings::Kind::dynamic:
      t += discard.kind == DiscardSettings::Kind::dynamic ? "\ndiscard\tdynamic\t" : "\ndiscard\tstatic\t";
      t += std::to_string(discard.limit);
      t += '\t';
      t += to_string(discard.mode);
      break;
  }
  if (dead_man.enabled()) {
    t += "\ndead_man\t" + ms(dead_man.detection_timeout);
    t += dead_man.kill_worker ? "\tkill" : "\treport";
  }
  if (rate.enabled()) t += "\nrate\t" + std::to_string(rate.jobs) + "\t" + ms(rate.per);
  if (draining) t += "\ndraining";
  return t;
}

std::string stuck_text(WorkerId id, const std::string& key, Duration running, bool killed, bool retried) {
  std::string text = "factory worker ";
  text += std::to_string(id);
  text += " has run the job with key '";
  text += key;
  text += "' for ";
  text += ms(running);
  text += " ms, past the dead-man's switch's timeout";
  if (!killed) return text + "; it is left to run (DeadManSwitch::kill_worker is off)";
  text += "; it is killed and rebuilt with its queue";
  text += retried ? " (the job runs again: its RetryStrategy allows it)" : " (the job is lost)";
  return text;
}

std::string discard_handler_text(std::size_t count) {
  std::string text = "factory: stopping with ";
  text += std::to_string(count);
  text += count == 1 ? " job" : " jobs";
  text += " still queued; they are discarded as shutdown (set FactorySpec::discard_handler to see them, or "
          "drain the factory to run them first)";
  return text;
}

SystemCore& factory_began(const ActorCell& factory, std::shared_ptr<FactoryProbe> probe, observe::Event config) {
  SystemCore& core = CoreAccess::cell(factory)->system();
  if (core.observing() != 0) {
    observe::Event now = config;
    core.emit_event(now);
  }
  core.factories().add(std::move(probe), std::move(config));
  return core;
}

void factory_reconfigured(SystemCore& core, observe::Event config) {
  if (core.observing() != 0) {
    observe::Event now = config;
    core.emit_event(now);
  }
  core.factories().reconfigured(config.actor, std::move(config));
}

void factory_event(SystemCore& core, observe::Event event) {
  if (core.observing() != 0) core.emit_event(event);
}

void factory_ended(SystemCore& core, const FactoryProbe& probe) noexcept { core.factories().remove(probe); }

void throw_worker_spawn_failed(WorkerId id, const std::string& why) {
  std::string text = "factory worker ";
  text += std::to_string(id);
  text += " failed to start: ";
  text += why;
  throw std::runtime_error(text);
}

std::string factory_spec_problem(std::size_t workers, Routing routing, bool has_custom_hash,
                                 bool key_hashable, bool worker_named, FactoryError::Kind& kind) {
  if (workers == 0) {
    kind = FactoryError::Kind::no_workers;
    return "a factory needs at least one worker: set FactorySpec::workers to 1 or more";
  }
  if (routing == Routing::custom_hash && !has_custom_hash) {
    kind = FactoryError::Kind::missing_custom_hash;
    return "Routing::custom_hash needs FactorySpec::custom_hash, a function from a key and the pool size to "
           "a "
           "worker index in 0..pool-1";
  }
  if (routing == Routing::key_persistent && !key_hashable) {
    kind = FactoryError::Kind::key_not_hashable;
    return "Routing::key_persistent hashes keys with std::hash, which does not know this key type: "
           "specialise "
           "std::hash for it, or use Routing::custom_hash with a hash of your own";
  }
  if (worker_named) {
    kind = FactoryError::Kind::worker_named;
    return "FactorySpec::worker_options has a name, but a name belongs to one actor and a factory has many "
           "workers: leave it empty and name the factory instead";
  }
  return {};
}

std::string custom_hash_out_of_range(std::size_t index, std::size_t pool) {
  std::string text = "factory: the custom hash chose worker ";
  text += std::to_string(index);
  text += " in a pool of ";
  text += std::to_string(pool);
  text += ", so the job is dropped; make FactorySpec::custom_hash return an index in 0..";
  text += std::to_string(pool - 1);
  return text;
}

std::string worker_job_fate(const std::string& key, bool retried, std::uint32_t retries_left, bool rebuilt) {
  std::string text = "its job " + key;
  if (!retried) return text + " is lost";
  text += rebuilt ? " runs again first" : " is routed again";
  if (retries_left == RetryStrategy::kUnlimited) return text + " (retried until it succeeds)";
  if (retries_left == 0) return text + " (its last retry)";
  return text + " (" + std::to_string(retries_left) + (retries_left == 1 ? " more retry" : " more retries") +
         " after this one)";
}

std::string worker_exit_text(WorkerId id, const std::string& what, std::optional<std::size_t> kept_queue,
                             const std::string& job_fate) {
  std::string text = "factory worker ";
  text += std::to_string(id);
  text += ' ';
  text += what;
  if (kept_queue) {
    text += "; it is rebuilt with the same id and keeps its ";
    text += std::to_string(*kept_queue);
    text += *kept_queue == 1 ? " queued job" : " queued jobs";
  } else {
    text += "; it is not rebuilt (the pool shrank)";
  }
  if (!job_fate.empty()) {
    text += "; ";
    text += job_fate;
  }
  return text;
}

std::string retry_impossible_text(const std::string& key) {
  return "factory: job " + key +
         " asks for retries, but its key or message cannot be copied, and the factory needs a copy to run it "
         "again: it runs once (make both copyable, or leave JobOptions::retry empty)";
}

}  // namespace detail
}  // namespace actorscope
