// SendArena: memory for message envelopes that cross threads. The sender carves them one after
// another out of its own slab (a pointer bump), so the receiver, which handles a batch in send
// order, walks neighbouring addresses that the hardware prefetches, instead of one dependent cache
// miss after another. The receiver frees a block by counting it off its slab; the last block of a
// retired slab recycles the whole slab. No lock and no malloc per message, and no size classes.
//
// The fast paths (a bump of the calling thread's cursor, a decrement of the block's slab count)
// are inline, so that a sender with a constant size pays a few instructions and no call. The
// cursor lives in a constant-initialised, trivially destructible thread_local, which needs no guard
// or wrapper on access; the slow path in send_arena.cpp arms the thread's exit cleanup, which
// retires the thread's slab, the first time the thread takes one.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace actorscope::detail {

class SendArena {
 public:
  /// Blocks up to this size come from slabs; larger ones go to operator new.
  static constexpr std::size_t kMaxBlock = 1024;
  /// Every block is aligned to at least this (the alignment of any ordinary type). In fact blocks
  /// are whole cache lines (kLine), so that two envelopes never share a line.
  static constexpr std::size_t kAlignment = alignof(std::max_align_t);
  /// Blocks are rounded up to this: no line holds the end of one envelope and the start of the
  /// next, which the receiver reading one and the sender writing the next would otherwise pass
  /// back and forth between their cores.
  static constexpr std::size_t kLine = 64;
  static constexpr std::size_t kSlabBytes = 64 * 1024;
  /// At most this many empty slabs are kept for reuse (32 MiB); the rest go back to the system.
  static constexpr std::size_t kKeptSlabs = 512;

  /// Memory for `size` bytes. @thread any
  static void* allocate(std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
    return ::operator new(size);  // the arena steps aside, so that a use-after-free is still caught
#else
    if (size > kMaxBlock) [[unlikely]]
      return ::operator new(size);
    size = block_size(size);
    Cursor& c = cursor_;
    if (static_cast<std::size_t>(c.end - c.next) < size) [[unlikely]]
      return allocate_slow(size);
    void* p = c.next;
    c.next += size;
    ++c.handed_out;
    return p;
#endif
  }

  /// Gives back a block from allocate(size), from any thread. @thread any
  static void deallocate(void* p, std::size_t size) noexcept {
#if defined(__SANITIZE_ADDRESS__)
    ::operator delete(p, size);
#else
    if (size > kMaxBlock) [[unlikely]] {
      ::operator delete(p, size);
      return;
    }
    SlabHeader* slab = slab_of(p);
    if (slab->live.fetch_sub(1, std::memory_order_acq_rel) == 1) [[unlikely]]
      recycle(slab);
#endif
  }

  /// How many slabs the process holds: in use (holding live blocks or being carved by a thread),
  /// plus kept for reuse. Both are zero under AddressSanitizer, where the arena steps aside.
  struct Usage {
    std::size_t slabs = 0;  ///< allocated from the system and not given back
    std::size_t kept = 0;   ///< of those, empty and waiting for reuse
  };
  static Usage usage() noexcept;

  static constexpr std::size_t block_size(std::size_t size) noexcept {
    return size == 0 ? kLine : (size + kLine - 1) & ~(kLine - 1);
  }

  /// The first cache line of a slab: its count of live blocks. It starts at kUnretired; each free
  /// subtracts one, and the sender subtracts the blocks it never handed out when it moves on to a
  /// new slab (retires it). Only receivers write it until then, so it stays in the receiver's
  /// cache, away from the blocks the sender writes.
  struct alignas(kLine) SlabHeader {
    std::atomic<std::int64_t> live{kUnretired};
  };
  static constexpr std::int64_t kUnretired = std::int64_t{1} << 40;  // more blocks than a slab holds

  /// The calling thread's slab: the next free byte, the slab's end, and how many blocks it carved.
  struct Cursor {
    char* next;
    char* end;
    SlabHeader* slab;
    std::int64_t handed_out;
    std::uint8_t state;  ///< 0: exit cleanup not armed; 1: armed; 2: the thread is exiting
  };

 private:
  static SlabHeader* slab_of(void* block) noexcept {
    return reinterpret_cast<SlabHeader*>(reinterpret_cast<std::uintptr_t>(block) & ~(std::uintptr_t{kSlabBytes} - 1));
  }
  static void* allocate_slow(std::size_t size);
  /// A slab's last block was freed: keep the slab for reuse or give it back.
  static void recycle(SlabHeader* slab) noexcept;

  static inline thread_local constinit Cursor cursor_{};
};

}  // namespace actorscope::detail
