// System: the public face of SystemCore.
#include <actorscope/system.hpp>

namespace actorscope {

System::System(std::unique_ptr<Runtime> runtime) : core_(std::make_unique<detail::SystemCore>(std::move(runtime), *this)) {}
System::System(std::string_view runtime_name, const RuntimeOptions& options) : System(make_runtime(runtime_name, options)) {}
System::~System() = default;

std::optional<ActorCell> System::where_is(std::string_view name) const {
  if (Ref<detail::CellCore> c = core_->lookup(name)) return ActorCell(std::move(c));
  return std::nullopt;
}

std::vector<std::string> System::registered() const { return core_->names(); }
std::vector<ActorCell> System::actors() const { return core_->live(detail::CellKind::actor); }
std::size_t System::actor_count() const { return core_->live_count(detail::CellKind::actor); }
std::size_t System::task_count() const { return core_->live_count(detail::CellKind::task); }
bool System::shutdown(Duration timeout) { return core_->shutdown(timeout); }
void System::set_log_sink(LogSink sink) { core_->set_log_sink(std::move(sink)); }

}  // namespace actorscope
