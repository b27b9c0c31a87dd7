// MessagePool's slow paths (the fast ones are inline in the header): a shared depot that moves
// whole batches between threads (one lock per batch), and each thread's exit cleanup. Under
// AddressSanitizer the pool steps aside, so that a use-after-free of a message is still caught.
#include <actorscope/detail/message_pool.hpp>

#include <array>
#include <mutex>
#include <new>
#include <vector>

namespace actorscope::detail {

#if !defined(__SANITIZE_ADDRESS__)

namespace {

using Block = MessagePool::Block;
using FreeLists = MessagePool::FreeLists;
constexpr std::size_t kClasses = MessagePool::kClasses;
constexpr std::size_t kBatch = 64;                           // blocks moved to or from the depot at once
constexpr std::uint32_t kThreadCap = 2 * kBatch;             // a thread keeps at most this many per class
constexpr std::size_t kDepotBytes = std::size_t{4} << 20;    // the depot keeps at most this much per class
constexpr std::size_t kDepotMaxBatches = 256;                // ... and at most this many batches
constexpr std::uint8_t kUnarmed = 0, kArmed = 1, kExiting = 2;

// A chain of kBatch blocks.
struct Batch {
  Block* head = nullptr;
  std::size_t count = 0;
};

constexpr std::size_t class_size(std::size_t cls) noexcept { return MessagePool::class_size(cls); }
constexpr std::size_t depot_cap(std::size_t cls) noexcept {
  const std::size_t by_bytes = kDepotBytes / (kBatch * class_size(cls));
  return by_bytes < kDepotMaxBatches ? by_bytes : kDepotMaxBatches;
}

void free_chain(Block* b, std::size_t cls) noexcept {
  while (b != nullptr) {
    Block* next = b->next;
    ::operator delete(static_cast<void*>(b), class_size(cls));
    b = next;
  }
}

// Shared by every thread. Never destroyed, so that a thread that exits late can still return its
// blocks.
class Depot {
 public:
  bool take(std::size_t cls, Batch& out) noexcept {
    std::lock_guard lk(m_[cls]);
    if (batches_[cls].empty()) return false;
    out = batches_[cls].back();
    batches_[cls].pop_back();
    return true;
  }
  void give(std::size_t cls, Batch b) noexcept {
    {
      std::lock_guard lk(m_[cls]);
      if (batches_[cls].size() < depot_cap(cls)) {
        try {
          batches_[cls].push_back(b);
          return;
        } catch (...) {  // no memory to keep it: free it below
        }
      }
    }
    free_chain(b.head, cls);
  }

 private:
  std::array<std::mutex, kClasses> m_;
  std::array<std::vector<Batch>, kClasses> batches_;
};

Depot& depot() noexcept {
  static Depot* d = new Depot;
  return *d;
}

// Takes the first n blocks of a class's list as a batch.
Batch detach(FreeLists& l, std::size_t cls, std::size_t n) noexcept {
  Batch b{l.head[cls], n};
  Block* last = l.head[cls];
  for (std::size_t i = 1; i < n; ++i) last = last->next;
  l.head[cls] = last->next;
  last->next = nullptr;
  l.count[cls] -= static_cast<std::uint32_t>(n);
  return b;
}

// Gives the thread's blocks back to the depot when the thread exits. It is a separate
// thread_local, constructed only by the slow paths, so that the lists themselves stay trivially
// destructible and free of access guards.
struct ExitCleanup {
  FreeLists* lists = nullptr;  // this thread's (set when armed)
  ~ExitCleanup() {
    FreeLists& l = *lists;
    l.state = kExiting;  // later frees on this thread (other thread_locals' destructors) go to the heap
    l.cap = 0;
    for (std::size_t cls = 0; cls < kClasses; ++cls) {
      while (l.count[cls] > 0) depot().give(cls, detach(l, cls, l.count[cls] < kBatch ? l.count[cls] : kBatch));
    }
  }
};

thread_local ExitCleanup exit_cleanup;

void arm(FreeLists& l) noexcept {
  exit_cleanup.lists = &l;  // the first use constructs it, which registers its destructor
  l.state = kArmed;
  l.cap = kThreadCap;
}

}  // namespace

void* MessagePool::allocate_slow(std::size_t cls) {
  FreeLists& l = lists_;
  if (l.state == kExiting) return ::operator new(class_size(cls));
  if (l.state == kUnarmed) arm(l);
  Batch b;
  if (!depot().take(cls, b)) return ::operator new(class_size(cls));
  Block* blk = b.head;
  l.head[cls] = blk->next;
  l.count[cls] = static_cast<std::uint32_t>(b.count - 1);
  return blk;
}

void MessagePool::deallocate_slow(std::size_t cls) noexcept {
  FreeLists& l = lists_;
  if (l.state == kExiting) {  // the block was pushed: take it back off and free it
    Block* b = l.head[cls];
    l.head[cls] = b->next;
    --l.count[cls];
    ::operator delete(static_cast<void*>(b), class_size(cls));
    return;
  }
  if (l.state == kUnarmed) arm(l);
  if (l.count[cls] > l.cap) depot().give(cls, detach(l, cls, kBatch));
}

#endif

}  // namespace actorscope::detail
