// SendArena: memory for message envelopes that cross threads. The sender carves them one after
// another out of its own slab (a pointer bump), so the receiver, which handles a batch in send
// order, walks neighbouring addresses that the hardware prefetches, instead of one dependent cache
// miss after another. The receiver frees a block by counting it off its slab; the last block of a
// retired slab recycles the whole slab. No lock and no malloc per message, and no size classes.
#pragma once

#include <cstddef>

namespace actorscope::detail {

class SendArena {
 public:
  /// Blocks up to this size come from slabs; larger ones go to operator new.
  static constexpr std::size_t kMaxBlock = 1024;
  /// Every block is aligned to at least this (the alignment of any ordinary type). In fact blocks
  /// are whole 64-byte cache lines, so that two envelopes never share a line.
  static constexpr std::size_t kAlignment = alignof(std::max_align_t);

  /// Memory for `size` bytes. @thread any
  static void* allocate(std::size_t size);
  /// Gives back a block from allocate(size), from any thread. @thread any
  static void deallocate(void* p, std::size_t size) noexcept;

  /// How many slabs the process holds: in use (holding live blocks or being carved by a thread),
  /// plus kept for reuse. Both are zero under AddressSanitizer, where the arena steps aside.
  struct Usage {
    std::size_t slabs = 0;  ///< allocated from the system and not given back
    std::size_t kept = 0;   ///< of those, empty and waiting for reuse
  };
  static Usage usage() noexcept;
  /// At most this many empty slabs are kept for reuse (32 MiB); the rest go back to the system.
  static constexpr std::size_t kKeptSlabs = 512;
  static constexpr std::size_t kSlabBytes = 64 * 1024;
};

}  // namespace actorscope::detail
