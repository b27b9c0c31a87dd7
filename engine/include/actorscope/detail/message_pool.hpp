// MessagePool: recycles small blocks that are allocated and freed often: the envelopes of messages
// an actor sends itself (envelopes that cross threads come from SendArena), and actor cells, which
// are allocated by the spawning thread and freed by the actor's. Each thread keeps small free lists
// per size class; surplus moves between threads in batches through a shared depot, so a block
// costs no lock and no malloc in the steady state.
//
// The fast paths (a pop from or a push onto the calling thread's list) are inline, so that a
// caller with a constant size pays a few instructions and no call. The lists live in a
// constant-initialised, trivially destructible thread_local, which needs no guard or wrapper on
// access; the slow paths in message_pool.cpp arm the thread's exit cleanup the first time the
// thread holds blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace actorscope::detail {

class MessagePool {
 public:
  /// Blocks up to this size are pooled; larger ones go to operator new.
  static constexpr std::size_t kMaxPooled = 1024;

  /// Memory for `size` bytes, aligned for any ordinary type. @thread any
  static void* allocate(std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
    return ::operator new(size);  // the pool steps aside, so that a use-after-free is still caught
#else
    if (size > kMaxPooled) [[unlikely]]
      return ::operator new(size);
    const std::size_t cls = class_of(size);
    FreeLists& l = lists_;
    Block* b = l.head[cls];
    if (b == nullptr) [[unlikely]]
      return allocate_slow(cls);
    l.head[cls] = b->next;
    --l.count[cls];
    return b;
#endif
  }

  /// Gives back a block from allocate(size), from any thread. @thread any
  static void deallocate(void* p, std::size_t size) noexcept {
#if defined(__SANITIZE_ADDRESS__)
    ::operator delete(p, size);
#else
    if (size > kMaxPooled) [[unlikely]] {
      ::operator delete(p, size);
      return;
    }
    const std::size_t cls = class_of(size);
    FreeLists& l = lists_;
    auto* b = static_cast<Block*>(p);
    b->next = l.head[cls];
    l.head[cls] = b;
    // cap is 0 until the thread's exit cleanup is armed: the first free on a thread goes the
    // slow way, and so does the one that takes a list over its cap.
    if (++l.count[cls] > l.cap) [[unlikely]]
      deallocate_slow(cls);
#endif
  }

  static constexpr std::size_t kGranule = 32;  ///< size classes: 32, 64, ..., kMaxPooled bytes
  static constexpr std::size_t kClasses = kMaxPooled / kGranule;
  static constexpr std::size_t class_of(std::size_t size) noexcept { return (size + kGranule - 1) / kGranule - 1; }
  static constexpr std::size_t class_size(std::size_t cls) noexcept { return (cls + 1) * kGranule; }

  struct Block {
    Block* next;
  };

  /// One thread's free lists.
  struct FreeLists {
    Block* head[kClasses];
    std::uint32_t count[kClasses];
    std::uint32_t cap;  ///< blocks a list may hold before a batch goes back; 0 until armed
    std::uint8_t state;  ///< 0: exit cleanup not armed; 1: armed; 2: the thread is exiting
  };

 private:
  static void* allocate_slow(std::size_t cls);
  static void deallocate_slow(std::size_t cls) noexcept;

  static inline thread_local constinit FreeLists lists_{};
};

}  // namespace actorscope::detail
