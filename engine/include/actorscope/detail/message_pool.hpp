// MessagePool: recycles the memory of message envelopes that an actor sends itself (allocated and
// freed on one thread; envelopes that cross threads come from SendArena). Each thread keeps small
// free lists per size class; surplus moves between threads in batches through a shared depot, so
// a message costs no lock and no malloc in the steady state.
#pragma once

#include <cstddef>

namespace actorscope::detail {

class MessagePool {
 public:
  /// Blocks up to this size are pooled; larger ones go to operator new.
  static constexpr std::size_t kMaxPooled = 512;

  /// Memory for `size` bytes, aligned for any ordinary type. @thread any
  static void* allocate(std::size_t size);
  /// Gives back a block from allocate(size), from any thread. @thread any
  static void deallocate(void* p, std::size_t size) noexcept;
};

}  // namespace actorscope::detail
