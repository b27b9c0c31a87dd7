// The factory's non-template parts: the texts of its errors and reports.
#include <actorscope/factory.hpp>

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

namespace detail {

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

std::string worker_exit_text(WorkerId id, const std::string& what, std::size_t queued) {
  std::string text = "factory worker ";
  text += std::to_string(id);
  text += ' ';
  text += what;
  text += "; it is rebuilt with the same id and keeps its ";
  text += std::to_string(queued);
  text += queued == 1 ? " queued job" : " queued jobs";
  return text;
}

}  // namespace detail
}  // namespace actorscope
