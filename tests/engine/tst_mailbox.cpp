// The message lane's FIFO inbox on its own: what many senders push comes out once each and in each
// sender's order; closing returns what is left in order and refuses later pushes, even while senders
// are mid-push; sealing lets everything accepted before the seal out first, then closes. Run under
// ThreadSanitizer by the sanitizer build, like the other engine tests.
#include <actorscope/detail/mailbox.hpp>

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using actorscope::detail::FifoInbox;
using actorscope::detail::MailboxNode;

namespace {

struct Item final : MailboxNode {
  int producer = 0;
  int seq = 0;
};

constexpr auto kDeadline = std::chrono::seconds(30);

}  // namespace

class TestMailbox : public QObject {
  Q_OBJECT

 private slots:
  void many_senders_each_get_every_item_through_once_and_in_order() {
    constexpr int kProducers = 4, kEach = 20000;
    FifoInbox inbox;
    std::vector<std::vector<Item>> items(kProducers, std::vector<Item>(kEach));
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p)
      producers.emplace_back([&, p] {
        for (int i = 0; i < kEach; ++i) {
          items[p][i].producer = p;
          items[p][i].seq = i;
          if (!inbox.push(&items[p][i])) return;
        }
      });
    std::vector<int> next(kProducers, 0);
    int received = 0, out_of_order = 0;
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (received < kProducers * kEach && std::chrono::steady_clock::now() < deadline) {
      MailboxNode* n = inbox.pop();
      if (n == nullptr) {
        std::this_thread::yield();  // empty, or a sender is between its CAS and its link
        continue;
      }
      const auto* item = static_cast<Item*>(n);
      if (item->seq != next[item->producer]) ++out_of_order;
      next[item->producer] = item->seq + 1;
      ++received;
    }
    for (auto& t : producers) t.join();
    QCOMPARE(received, kProducers * kEach);
    QCOMPARE(out_of_order, 0);
    QVERIFY(!inbox.has_items());
    QCOMPARE(inbox.pop(), nullptr);
  }

  void an_emptied_inbox_takes_new_items_and_reports_them() {
    FifoInbox inbox;
    Item a, b, c;
    QVERIFY(!inbox.has_items());
    QVERIFY(inbox.push(&a));
    QVERIFY(inbox.has_items());
    QCOMPARE(inbox.pop(), &a);  // the last item: the stub goes back in behind it
    QVERIFY(!inbox.has_items());
    QCOMPARE(inbox.pop(), nullptr);
    QVERIFY(inbox.push(&b));
    QVERIFY(inbox.push(&c));
    QCOMPARE(inbox.pop(), &b);
    QCOMPARE(inbox.pop(), &c);
    QCOMPARE(inbox.pop(), nullptr);
  }

  void close_returns_what_is_left_in_order_and_refuses_later_pushes() {
    FifoInbox inbox;
    Item items[5];
    for (Item& i : items) QVERIFY(inbox.push(&i));
    QCOMPARE(inbox.pop(), &items[0]);
    QCOMPARE(inbox.pop(), &items[1]);
    MailboxNode* rest = inbox.close();
    for (int i = 2; i < 5; ++i) {
      QCOMPARE(rest, static_cast<MailboxNode*>(&items[i]));
      rest = rest->next;
    }
    QCOMPARE(rest, nullptr);
    QVERIFY(inbox.is_closed());
    QVERIFY(!inbox.has_items());
    Item late;
    QVERIFY(!inbox.push(&late));
    QCOMPARE(inbox.close(), nullptr);
  }

  // Every item is accounted for exactly once: handled before the close, returned by it, or refused.
  void closing_while_senders_push_loses_nothing() {
    constexpr int kProducers = 3, kEach = 20000;
    FifoInbox inbox;
    std::vector<std::vector<Item>> items(kProducers, std::vector<Item>(kEach));
    std::atomic<int> accepted{0}, refused{0};
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p)
      producers.emplace_back([&, p] {
        for (int i = 0; i < kEach; ++i) (inbox.push(&items[p][i]) ? accepted : refused).fetch_add(1);
      });
    int taken = 0;
    while (taken < kEach) {  // let some through, then close in the middle of the stream
      if (inbox.pop() != nullptr) ++taken;
      else std::this_thread::yield();
    }
    for (MailboxNode* n = inbox.close(); n != nullptr; n = n->next) ++taken;
    for (auto& t : producers) t.join();
    QCOMPARE(accepted.load() + refused.load(), kProducers * kEach);
    QCOMPARE(taken, accepted.load());
  }

  void a_seal_comes_out_after_everything_accepted_before_it_and_closes() {
    Item marker;
    FifoInbox inbox(&marker);
    Item a, b, late;
    QVERIFY(inbox.push(&a));
    QVERIFY(inbox.push(&b));
    QVERIFY(inbox.seal());
    QVERIFY(!inbox.push(&late));
    QVERIFY(!inbox.seal());
    QCOMPARE(inbox.pop(), &a);
    QCOMPARE(inbox.pop(), &b);
    QVERIFY(!inbox.is_closed());
    QCOMPARE(inbox.pop(), static_cast<MailboxNode*>(&marker));
    QVERIFY(inbox.is_closed());
    QVERIFY(!inbox.has_items());
    QCOMPARE(inbox.pop(), nullptr);
    QVERIFY(!inbox.push(&late));
  }
};

QTEST_GUILESS_MAIN(TestMailbox)
#include "tst_mailbox.moc"
