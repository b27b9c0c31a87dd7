// DiffTableModel: the per-actor difference table of two sessions (storage's RecordingDiff), for the
// compare window (app/gui/compare_window): one row per matched actor, in the diff's order (the
// largest difference first), then one row per actor found on one side only; for each DiffColumn
// three columns, side A, side B and the ratio B/A, written as `actorscope diff` writes them ("new",
// "gone", "—").
#pragma once

#include <actorscope/storage/recording_diff.hpp>

#include <QAbstractTableModel>
#include <QString>

namespace actorscope::views {

class DiffTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class Part : int { a = 0, b = 1, ratio = 2 };
  /// Column 0 is the actor's path; then 3 columns per DiffColumn (A, B, B/A) in DiffColumn order.
  static constexpr int kActorColumn = 0;
  static int column(DiffColumn c, Part part) noexcept {
    return 1 + static_cast<int>(c) * 3 + static_cast<int>(part);
  }

  explicit DiffTableModel(QObject* parent = nullptr);

  /// Shows `diff` (replacing what was shown). A reset, not the incremental updates of the live
  /// models: a diff is computed once per comparison and replaced whole, never updated in place.
  void setDiff(RecordingDiff diff);
  void clear();
  const RecordingDiff& diff() const noexcept { return diff_; }

  /// Rows [0, matchedRows()) are matched actors; the rest are on one side only (A's, then B's).
  int matchedRows() const noexcept { return static_cast<int>(diff_.rows.size()); }
  /// "A" or "B" for a one-sided row, "" for a matched one.
  QString onlyIn(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  /// DisplayRole: the text; SortRole (roles.hpp): a number that sorts (the ratio's |ln| for a ratio
  /// column, infinite for new and gone, so that sorting a ratio column sorts by its difference);
  /// ToolTipRole: the whole path, and how the row matched; TextAlignmentRole: numbers to the right.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  RecordingDiff diff_;
};

}  // namespace actorscope::views
