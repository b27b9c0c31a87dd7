// MessagePool: recycles small blocks that are allocated and freed often: the envelopes of messages
// an actor sends itself (envelopes that cross threads come from SendArena), and actor cells, which
// are allocated by the spawning thread and freed by the actor's. Each thread keeps small free lists
// per size class; surplus moves between threads in batches through a shared depot, so a block
// costs no lock and no malloc in the steady state.
#pragma once

#include <cstddef>

namespace actorscope::detail {

class MessagePool {
 public:
  /// Blocks up to this size are pooled; larger ones go to operator new.
  static constexpr std::size_t kMaxPooled = 1024;

  /// Memory for `size` bytes, aligned for any ordinary type. @thread any
  static void* allocate(std::size_t size);
  /// Gives back a block from allocate(size), from any thread. @thread any
  static void deallocate(void* p, std::size_t size) noexcept;
};

}  // namespace actorscope::detail
