// SupervisionTreeModel: the supervision tree as an item model (actors under their supervisors).
// update() brings it to a new SystemState with the fewest signals it can: rows inserted and
// removed where the tree changed, dataChanged only for rows whose figures moved. It never resets
// on an update, so expansion, selection and scroll position survive.
#pragma once

#include "common/health.hpp"

#include <actorscope/observe/system_state.hpp>

#include <QAbstractItemModel>
#include <QString>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace actorscope::views {

class SupervisionTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { NameColumn, IdColumn, StatusColumn, MailboxColumn, RateColumn, FailuresColumn, ColumnCount };

  explicit SupervisionTreeModel(QObject* parent = nullptr);
  ~SupervisionTreeModel() override;

  /// Brings the model to `state`.
  void update(const observe::SystemState& state);
  /// Forgets everything (a new session starts): one model reset.
  void clear();

  /// Whether stopped actors stay in the tree. When not, a stopped actor lingers for a few seconds
  /// (so a failure is seen) and then leaves. Takes effect at the next update().
  void setShowStopped(bool show) { showStopped_ = show; }
  bool showStopped() const noexcept { return showStopped_; }
  /// Shows only actors whose name, type or id contains `text` (case-insensitive), with their
  /// ancestors. The model filters itself: a proxy in front of a large tree costs more than the
  /// tree. Takes effect at the next update().
  void setFilterText(const QString& text);
  static constexpr Duration kLinger = std::chrono::seconds(3);
  static constexpr std::size_t kMaxLingering = 40;

  /// A view that shows only expanded subtrees can ask to be told about figure changes under
  /// expanded rows only: rows under a collapsed row are still updated, but their dataChanged waits
  /// until setExpanded(row, true) (a 10,000-row tree mostly collapsed then costs what its visible
  /// rows cost). Structure changes are always signalled. Off by default.
  void setNotifyExpandedOnly(bool on) { notifyExpandedOnly_ = on; }
  void setExpanded(const QModelIndex& index, bool expanded);

  QModelIndex indexOf(ActorId id, int column = 0) const;
  ActorId actorAt(const QModelIndex& index) const;
  /// Actors currently in the model, and how many of them have stopped (they linger for a while).
  std::size_t nodeCount() const noexcept { return byId_.size(); }
  std::size_t stoppedCount() const;
  /// The search text in force ("" for none).
  const std::string& filterText() const noexcept { return filter_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  /// Which of the shared actor-cell rules (actorCellData) a column follows.
  static ActorCell cellOf(int column);
  /// What identifies a row: set when the row is made, refreshed only when the name or the status
  /// changes (strings are not rebuilt for 10,000 rows on every update).
  struct Identity {
    std::string label;     ///< the name under its parent ("clerk-1")
    std::string fullName;  ///< "desk-a/clerk-1"
    std::string type;
    std::string exitReason;
    std::size_t nameLength = 0;
  };
  /// The figures that move all the time.
  struct Figures {
    Health health = Health::starting;
    std::uint64_t mailbox = 0;
    double rate = 0;
    std::uint64_t failures = 0;
    std::size_t recentFailures = 0;
    std::uint32_t restarts = 0;  ///< a Supervisor's child: how often it was restarted ("↻ 3" by its name)
    bool operator==(const Figures&) const = default;
  };
  struct Node {
    ActorId id{};
    Node* parent = nullptr;
    int row = 0;
    std::vector<Node*> children;
    Identity identity;
    Figures figures;
    /// The actor's record in the state of the last update: valid while the structure signature
    /// holds (records live in a std::map; only structural events insert or erase them).
    const observe::ActorRecord* record = nullptr;
    bool expanded = false;  ///< as the view says (setExpanded)
    bool stale = false;     ///< children's figures changed without a dataChanged (collapsed)
  };
  /// What changes when the tree's shape can change: while it holds, an update only refreshes
  /// figures through the cached record pointers, with no lookups and no visibility pass.
  struct Signature {
    const observe::SystemState* state = nullptr;
    std::size_t actors = 0;
    std::uint64_t structural = 0;
    bool showStopped = false;
    std::string filter;
    bool operator==(const Signature&) const = default;
  };
  /// Every actor reached from the roots in an update: its record (so that the rest of the update
  /// looks it up in this hash map, not in the state's ordered map again) and whether it is shown.
  struct Seen {
    const observe::ActorRecord* record = nullptr;
    bool show = false;
  };
  using Visible = std::unordered_map<ActorId, Seen>;

  Figures figuresFor(const observe::SystemState& state, const observe::ActorRecord& actor) const;
  void fillIdentity(Node& node, const observe::SystemState& state, const observe::ActorRecord& actor) const;
  bool markVisible(const observe::SystemState& state, const observe::ActorRecord& actor, Visible& visible) const;
  std::vector<ActorId> visibleChildren(const observe::SystemState& state, const observe::ActorRecord* parent,
                                       const Visible& visible) const;
  void sync(const observe::SystemState& state, Node* parent, const std::vector<ActorId>& target,
            const Visible& visible);
  Node* create(const observe::SystemState& state, ActorId id, Node* parent, const Visible& visible);
  /// The record of `id`: from `visible` when it is there (a hash lookup), else from the state.
  static const observe::ActorRecord* recordOf(const observe::SystemState& state, ActorId id, const Visible& visible);
  void destroy(Node* node);
  QModelIndex indexFor(const Node* node, int column) const;
  std::vector<Node*>& childrenOf(Node* parent) { return parent ? parent->children : roots_; }
  const std::vector<Node*>& childrenOf(const Node* parent) const { return parent ? parent->children : roots_; }
  static void renumber(std::vector<Node*>& nodes, std::size_t from);
  static Signature signatureOf(const observe::SystemState& state, bool showStopped, const std::string& filter);
  bool matches(const observe::ActorRecord& actor) const;
  /// Refreshes the figures of `parent`'s children (not fresh ones), in dataChanged runs.
  void refreshChildren(const observe::SystemState& state, Node* parent, const std::vector<Node*>& fresh);
  void refreshAll(const observe::SystemState& state, Node* parent);

  std::vector<Node*> roots_;
  std::unordered_map<ActorId, std::unique_ptr<Node>> byId_;
  bool showStopped_ = false;
  bool notifyExpandedOnly_ = false;
  std::string filter_;  ///< lower case
  Signature signature_;
  TimePoint lingerUntil_ = TimePoint::max();  ///< when a lingering stopped actor must leave
  TimePoint lingerSince_{};                   ///< stopped actors stopped since then linger
};

}  // namespace actorscope::views
