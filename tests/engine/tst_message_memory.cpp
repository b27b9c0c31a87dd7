// Where message envelopes live: SendArena (messages that cross threads) and the messages that ride
// in it. A user relies on every message arriving intact and in order whatever its size or
// alignment, and on memory going back once the messages are handled.
#include "engine_test.hpp"

#include <actorscope/detail/send_arena.hpp>

#include <array>
#include <cstdint>
#include <cstring>

using namespace engine_test;
using actorscope::detail::SendArena;

namespace {

template <std::size_t Bytes>
struct Blob {
  std::array<std::uint8_t, Bytes> bytes{};
  static Blob numbered(std::uint32_t n) {
    Blob b;
    for (std::size_t i = 0; i < Bytes; ++i) b.bytes[i] = static_cast<std::uint8_t>(n * 31 + i);
    return b;
  }
  bool is(std::uint32_t n) const { return bytes == numbered(n).bytes; }
};

struct alignas(32) Aligned {
  std::uint32_t n = 0;
};

// Receives messages numbered 0, 1, 2, ...; records each one that is out of order, corrupt or
// misaligned, and "done" after the last.
template <class M>
struct Checker {
  using Message = M;
  using State = std::uint32_t;
  Probe* probe = nullptr;
  std::uint32_t count = 0;
  void handle(as::Context<Checker>&, const M& m, std::uint32_t& next) {
    bool ok = true;
    if constexpr (requires { m.is(0u); }) {
      ok = m.is(next);
    } else {
      ok = m.n == next && reinterpret_cast<std::uintptr_t>(&m) % alignof(M) == 0;
    }
    if (!ok) probe->record("bad message");
    if (++next == count) probe->record("done");
  }
  std::uint32_t pre_start(as::Context<Checker>&) { return 0; }
};

// Sends itself 1,000 over-aligned messages, one at a time.
struct SelfSender {
  using Message = Aligned;
  using State = std::uint32_t;
  Probe* probe = nullptr;
  State pre_start(as::Context<SelfSender>& ctx) {
    (void)ctx.self().cast(Aligned{0});
    return 0;
  }
  void handle(as::Context<SelfSender>& ctx, const Aligned& m, State& next) {
    if (m.n != next || reinterpret_cast<std::uintptr_t>(&m) % alignof(Aligned) != 0) probe->record("bad message");
    if (++next == 1000) {
      probe->record("done");
    } else {
      (void)ctx.self().cast(Aligned{next});
    }
  }
};

template <class M>
void cast_numbered(as::System& sys, std::uint32_t count) {
  Probe probe;
  auto actor = sys.spawn(Checker<M>{.probe = &probe, .count = count}, {});
  QVERIFY(actor.has_value());
  for (std::uint32_t i = 0; i < count; ++i) {
    M m;
    if constexpr (requires { M::numbered(0u); }) {
      m = M::numbered(i);
    } else {
      m.n = i;
    }
    QVERIFY(actor->cast(m).has_value());
  }
  QVERIFY(probe.wait_for(sys, "done", kTimeout));
  QCOMPARE(probe.count("bad message"), std::size_t{0});
  QVERIFY(actor->stop_and_wait(kTimeout));
}

}  // namespace

class TestMessageMemory : public QObject {
  Q_OBJECT

  static std::size_t in_use() {
    const SendArena::Usage u = SendArena::usage();
    return u.slabs - u.kept;
  }

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  // Every size class the arena serves, the largest it serves, one above it (operator new) and an
  // over-aligned type (operator new, aligned): all arrive intact, in order.
  void messagesOfEverySizeArriveIntactAndInOrder() {
    auto sys = make_system();
    cast_numbered<Blob<1>>(*sys, 20000);
    cast_numbered<Blob<200>>(*sys, 5000);
    cast_numbered<Blob<SendArena::kMaxBlock - 64>>(*sys, 2000);
    cast_numbered<Blob<SendArena::kMaxBlock + 64>>(*sys, 500);
    cast_numbered<Aligned>(*sys, 2000);
  }

  // An over-aligned message an actor sends itself (the path that reuses same-thread memory).
  void overAlignedMessagesToSelfAreAligned() {
    auto sys = make_system();
    Probe probe;
    auto actor = sys->spawn(SelfSender{.probe = &probe}, {});
    QVERIFY(actor.has_value());
    QVERIFY(probe.wait_for(*sys, "done", kTimeout));
    QCOMPARE(probe.count("bad message"), std::size_t{0});
    QVERIFY(actor->stop_and_wait(kTimeout));
  }

  // More messages than one slab holds, from several threads at once: each sender's order holds.
  void concurrentSendersKeepTheirOrder() {
    auto sys = make_system();
    if (is_manual(*sys)) QSKIP("the manual runtime runs on the test's thread; senders here are threads");
    constexpr int kSenders = 3;
    constexpr std::uint32_t kEach = 30000;
    struct Seq {
      std::uint32_t sender = 0;
      std::uint32_t n = 0;
    };
    struct Counter {
      using Message = Seq;
      Probe* probe = nullptr;
      using State = std::array<std::uint32_t, kSenders>;
      State pre_start(as::Context<Counter>&) { return {}; }
      void handle(as::Context<Counter>&, const Seq& s, State& next) {
        if (s.n != next[s.sender]) probe->record("out of order");
        if (++next[s.sender] == kEach) probe->record("sender done");
      }
    };
    Probe probe;
    auto actor = sys->spawn(Counter{.probe = &probe}, {});
    QVERIFY(actor.has_value());
    std::vector<std::thread> senders;
    for (std::uint32_t s = 0; s < kSenders; ++s)
      senders.emplace_back([&, s] {
        for (std::uint32_t i = 0; i < kEach; ++i) (void)actor->cast(Seq{s, i});
      });
    for (auto& t : senders) t.join();
    QVERIFY(probe.wait_count(*sys, "sender done", kSenders, kTimeout));
    QCOMPARE(probe.count("out of order"), std::size_t{0});
    QVERIFY(actor->stop_and_wait(kTimeout));
  }

  // Once every message is handled and the sender has exited, none of the slabs it used is in use
  // any more: each one is kept for reuse (up to kKeptSlabs) or given back. (Other threads that
  // sent earlier, like this test's, still hold the slab they are carving.)
  void slabsComeBackWhenTheMessagesAreHandled() {
    auto sys = make_system();
    if (is_manual(*sys)) QSKIP("the manual runtime runs on the test's thread; the sender here is a thread");
    const std::size_t before = in_use();
    std::thread sender([&] { cast_numbered<Blob<120>>(*sys, 50000); });  // ~90 slabs
    sender.join();
    QCOMPARE(in_use(), before);
    QVERIFY(SendArena::usage().kept <= SendArena::kKeptSlabs);
  }

  // Envelopes that follow each other in a burst never share a cache line: the receiver reading one
  // and the sender writing the next would pass that line back and forth between their cores.
  void arenaBlocksStartOnTheirOwnCacheLine() {
    if (current_runtime() != "asio") QSKIP("does not use a runtime; run once");
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("the arena steps aside under AddressSanitizer");
#endif
    std::vector<std::pair<void*, std::size_t>> blocks;
    std::thread producer([&] {
      for (std::size_t size : {8u, 48u, 112u, 65u, 304u, 1u, 1000u})
        blocks.emplace_back(SendArena::allocate(size), size);
    });
    producer.join();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const auto at = reinterpret_cast<std::uintptr_t>(blocks[i].first);
      QCOMPARE(at % 64, std::uintptr_t{0});
      if (i > 0) {  // the next block starts on the line after this one's last byte
        const auto prev_end = reinterpret_cast<std::uintptr_t>(blocks[i - 1].first) + blocks[i - 1].second;
        QVERIFY(at >= prev_end);
      }
    }
    for (const auto& [p, size] : blocks) SendArena::deallocate(p, size);
  }

  // The arena itself: blocks are aligned, distinct and writable, from the smallest to the largest
  // size, and a block freed on another thread than its sender's is fine.
  void arenaBlocksAreAlignedAndDistinct() {
    if (current_runtime() != "asio") QSKIP("does not use a runtime; run once");
    const std::size_t before = in_use();
    std::vector<std::pair<void*, std::size_t>> blocks;
    std::thread producer([&] {
      for (std::size_t size = 1; size <= SendArena::kMaxBlock + 100; size += 7) {
        void* p = SendArena::allocate(size);
        std::memset(p, static_cast<int>(size & 0xff), size);
        blocks.emplace_back(p, size);
      }
    });
    producer.join();  // its slab is retired with the thread; the blocks stay valid
    for (const auto& [p, size] : blocks) {
      QCOMPARE(reinterpret_cast<std::uintptr_t>(p) % SendArena::kAlignment, std::uintptr_t{0});
      const auto* bytes = static_cast<const unsigned char*>(p);
      QCOMPARE(bytes[0], static_cast<unsigned char>(size & 0xff));  // not overwritten by a neighbour
      QCOMPARE(bytes[size - 1], static_cast<unsigned char>(size & 0xff));
    }
    auto by_address = blocks;
    std::sort(by_address.begin(), by_address.end());
    for (std::size_t i = 1; i < by_address.size(); ++i)
      QVERIFY(static_cast<char*>(by_address[i - 1].first) + by_address[i - 1].second <=
              static_cast<char*>(by_address[i].first));
    for (const auto& [p, size] : blocks) SendArena::deallocate(p, size);
    QCOMPARE(in_use(), before);
  }

  // A thread that still sends while it exits, from a thread_local's destructor that runs after
  // the arena's exit cleanup, does not strand a slab: each such block gets a slab that is already
  // retired, so freeing the block recycles it.
  void sendsDuringThreadExitGiveTheirSlabsBack() {
    if (current_runtime() != "asio") QSKIP("does not use a runtime; run once");
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("the arena steps aside under AddressSanitizer");
#endif
    const std::size_t before = in_use();
    std::vector<std::pair<void*, std::size_t>> late;
    std::thread sender([&] {
      // Constructed before the thread's first arena block, so destroyed after the arena's cleanup.
      thread_local SendsOnExit on_exit;
      on_exit.out = &late;
      SendArena::deallocate(SendArena::allocate(100), 100);
    });
    sender.join();
    QCOMPARE(late.size(), std::size_t{3});
    for (const auto& [p, size] : late) SendArena::deallocate(p, size);
    QCOMPARE(in_use(), before);
  }

 private:
  struct SendsOnExit {
    std::vector<std::pair<void*, std::size_t>>* out = nullptr;
    ~SendsOnExit() {
      for (std::size_t size : {64u, 200u, 1000u}) out->emplace_back(SendArena::allocate(size), size);
    }
  };
};

QTEST_GUILESS_MAIN(TestMessageMemory)
#include "tst_message_memory.moc"
