// Runtimes by name: the built-in "asio" and "manual", plus any backend registered at start-up (qt).
#include <actorscope/runtime.hpp>

#include <actorscope/manual_runtime.hpp>

#include "asio/asio_runtime.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace actorscope {

namespace {
struct Registry {
  std::mutex m;
  std::map<std::string, RuntimeFactory, std::less<>> factories;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: backends may register from static initialisers
    reg->factories.emplace("asio", [](const RuntimeOptions& o) -> std::unique_ptr<Runtime> {
      return std::make_unique<AsioRuntime>(o);
    });
    reg->factories.emplace("manual", [](const RuntimeOptions& o) -> std::unique_ptr<Runtime> {
      return std::make_unique<ManualRuntime>(o);
    });
    return reg;
  }();
  return *r;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += '"' + n + '"';
  }
  return out;
}

thread_local int runtime_thread_depth = 0;
}  // namespace

UnknownRuntimeError::UnknownRuntimeError(std::string requested, std::vector<std::string> known)
    : std::invalid_argument("unknown runtime \"" + requested + "\"; this build knows " + join_names(known) +
                            (std::find(known.begin(), known.end(), "qt") == known.end() && requested == "qt"
                                 ? " (link actorscope::runtime_qt to get \"qt\")"
                                 : "")),
      requested_(std::move(requested)),
      known_(std::move(known)) {}

void register_runtime(std::string_view name, RuntimeFactory factory) {
  Registry& r = registry();
  std::lock_guard lk(r.m);
  r.factories.insert_or_assign(std::string(name), factory);
}

std::vector<std::string> runtime_names() {
  Registry& r = registry();
  std::lock_guard lk(r.m);
  std::vector<std::string> out;
  for (const auto& [name, f] : r.factories) out.push_back(name);
  return out;
}

std::unique_ptr<Runtime> make_runtime(std::string_view name, const RuntimeOptions& options) {
  RuntimeFactory factory = nullptr;
  {
    Registry& r = registry();
    std::lock_guard lk(r.m);
    auto it = r.factories.find(name);
    if (it != r.factories.end()) factory = it->second;
  }
  if (factory == nullptr) throw UnknownRuntimeError(std::string(name), runtime_names());
  return factory(options);
}

namespace detail {
RuntimeThreadScope::RuntimeThreadScope() noexcept { ++runtime_thread_depth; }
RuntimeThreadScope::~RuntimeThreadScope() { --runtime_thread_depth; }
bool this_thread_runs_actors() noexcept { return runtime_thread_depth > 0; }
}  // namespace detail

}  // namespace actorscope
