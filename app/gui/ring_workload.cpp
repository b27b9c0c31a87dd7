// Token rings.
#include "gui/ring_workload.hpp"

#include <actorscope/actorscope.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::gui {
namespace {

struct Token {
  std::uint64_t hops;
};
// A node forwards every token to the next node of its ring (the ring's references are shared).
struct RingNode {
  using Message = Token;
  struct State {
    std::shared_ptr<std::vector<ActorRef<Message>>> ring;
    std::size_t next = 0;
  };
  using Arguments = State;
  State pre_start(Context<RingNode>&, State s) { return s; }
  void handle(Context<RingNode>&, Token t, State& s) { (void)(*s.ring)[s.next].cast(Token{t.hops + 1}); }
};

// A ring supervisor: spawns its nodes, closes the ring, then starts the tokens.
struct Ring {
  using Message = int;
  using Arguments = RingShape;
  using State = RingShape;
  State pre_start(Context<Ring>&, RingShape shape) { return shape; }
  void post_start(Context<Ring>& ctx, RingShape& shape) {
    auto ring = std::make_shared<std::vector<ActorRef<RingNode::Message>>>();
    ring->reserve(shape.nodes);
    for (std::size_t i = 0; i < shape.nodes; ++i) {
      auto node = ctx.template spawn_linked<RingNode>({}, RingNode::State{ring, (i + 1) % shape.nodes});
      if (!node) return;  // the ring is being stopped
      ring->push_back(*node);
    }
    for (std::size_t t = 0; t < shape.tokens; ++t) (void)(*ring)[t * shape.nodes / shape.tokens].cast(Token{0});
  }
  void handle(Context<Ring>&, int, RingShape&) {}
  void handle_supervisor_event(Context<Ring>&, const SupervisionEvent&, RingShape&) {}
};

struct Rings {
  using Message = int;
  using Arguments = RingShape;
  using State = RingShape;
  State pre_start(Context<Rings>&, RingShape shape) { return shape; }
  void post_start(Context<Rings>& ctx, RingShape& shape) {
    for (std::size_t r = 0; r < shape.rings; ++r)
      (void)ctx.template spawn_linked<Ring>({.name = "ring-" + std::to_string(r + 1)}, shape);
  }
  void handle(Context<Rings>&, int, RingShape&) {}
  void handle_supervisor_event(Context<Rings>&, const SupervisionEvent&, RingShape&) {}
};

}  // namespace

Workload ringWorkload(RingShape shape) {
  Workload w;
  w.name = "rings";
  w.summary = std::to_string(shape.rings) + " rings of " + std::to_string(shape.nodes) + " actors passing " +
              std::to_string(shape.tokens) + " tokens each, as fast as they can";
  w.start = [shape](System& system, std::uint64_t) {
    auto root = system.spawn<Rings>({.name = "rings"}, shape);
    if (!root) throw std::runtime_error(root.error().what());
  };
  return w;
}

}  // namespace actorscope::gui
