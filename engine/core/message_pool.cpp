// MessagePool: per-thread free lists by size class, and a shared depot that moves whole batches
// between threads (one lock per batch). Under AddressSanitizer it steps aside, so that a
// use-after-free of a message is still caught.
#include <actorscope/detail/message_pool.hpp>

#include <array>
#include <mutex>
#include <new>
#include <vector>

namespace actorscope::detail {

#if defined(__SANITIZE_ADDRESS__)

void* MessagePool::allocate(std::size_t size) { return ::operator new(size); }
void MessagePool::deallocate(void* p, std::size_t size) noexcept { ::operator delete(p, size); }

#else

namespace {

constexpr std::size_t kGranule = 32;                         // size classes: 32, 64, ..., 1024 bytes
constexpr std::size_t kClasses = MessagePool::kMaxPooled / kGranule;
constexpr std::size_t kBatch = 64;                           // blocks moved to or from the depot at once
constexpr std::size_t kThreadCap = 2 * kBatch;               // a thread keeps at most this many per class
constexpr std::size_t kDepotBytes = std::size_t{4} << 20;    // the depot keeps at most this much per class
constexpr std::size_t kDepotMaxBatches = 256;                // ... and at most this many batches

struct Block {
  Block* next;
};

// A chain of kBatch blocks.
struct Batch {
  Block* head = nullptr;
  std::size_t count = 0;
};

constexpr std::size_t class_of(std::size_t size) noexcept { return (size + kGranule - 1) / kGranule - 1; }
constexpr std::size_t class_size(std::size_t cls) noexcept { return (cls + 1) * kGranule; }
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

// One per thread: a free list per class. On thread exit its blocks go back to the depot.
struct ThreadCache {
  std::array<Block*, kClasses> head{};
  std::array<std::size_t, kClasses> count{};

  ~ThreadCache() {
    for (std::size_t cls = 0; cls < kClasses; ++cls) {
      while (count[cls] > 0) depot().give(cls, detach(cls, count[cls] < kBatch ? count[cls] : kBatch));
    }
  }

  // Takes the first n blocks of a class's list as a batch.
  Batch detach(std::size_t cls, std::size_t n) noexcept {
    Batch b{head[cls], n};
    Block* last = head[cls];
    for (std::size_t i = 1; i < n; ++i) last = last->next;
    head[cls] = last->next;
    last->next = nullptr;
    count[cls] -= n;
    return b;
  }
};

thread_local ThreadCache cache;

}  // namespace

// The slow paths are out of line, so that the fast paths (a pop or push on the thread's list) need
// no stack frame: with them inline, every call saved and restored six registers for nothing.
namespace {

[[gnu::noinline]] void* refill_and_allocate(std::size_t cls) {
  ThreadCache& c = cache;
  Batch b;
  if (!depot().take(cls, b)) return ::operator new(class_size(cls));
  Block* blk = b.head;
  c.head[cls] = blk->next;
  c.count[cls] = b.count - 1;
  return blk;
}

[[gnu::noinline]] void give_back_batch(std::size_t cls) noexcept {
  ThreadCache& c = cache;
  depot().give(cls, c.detach(cls, kBatch));
}

}  // namespace

void* MessagePool::allocate(std::size_t size) {
  if (size > kMaxPooled) [[unlikely]]
    return ::operator new(size);
  const std::size_t cls = class_of(size);
  ThreadCache& c = cache;
  Block* blk = c.head[cls];
  if (blk == nullptr) [[unlikely]]
    return refill_and_allocate(cls);
  c.head[cls] = blk->next;
  --c.count[cls];
  return blk;
}

void MessagePool::deallocate(void* p, std::size_t size) noexcept {
  if (size > kMaxPooled) [[unlikely]] {
    ::operator delete(p, size);
    return;
  }
  const std::size_t cls = class_of(size);
  ThreadCache& c = cache;
  auto* blk = static_cast<Block*>(p);
  blk->next = c.head[cls];
  c.head[cls] = blk;
  if (++c.count[cls] > kThreadCap) [[unlikely]]
    give_back_batch(cls);
}

#endif

}  // namespace actorscope::detail
