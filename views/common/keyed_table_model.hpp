// KeyedTableModel: a table whose rows carry a unique, sortable key (a timer id, a warning, a
// message). setRows() moves it to a new row set with the fewest signals: removed and inserted
// runs, and dataChanged only over rows that differ, so selection and scroll survive updates.
#pragma once

#include <QAbstractTableModel>

#include <algorithm>
#include <vector>

namespace actorscope::views {

/// Row needs `key()` (totally ordered, unique) and `operator==`.
template <class Row>
class KeyedTableModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;

  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
  }
  const std::vector<Row>& rows() const noexcept { return rows_; }

  void clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
  }

 protected:
  /// `fresh` must be sorted by key.
  void setRows(std::vector<Row> fresh) {
    // Removals: rows whose key is not in `fresh`, in runs from the bottom.
    auto wanted = [&](const Row& r) {
      auto it = std::lower_bound(fresh.begin(), fresh.end(), r, [](const Row& a, const Row& b) { return a.key() < b.key(); });
      return it != fresh.end() && !(r.key() < it->key());
    };
    int end = static_cast<int>(rows_.size()) - 1;
    while (end >= 0) {
      if (wanted(rows_[static_cast<std::size_t>(end)])) {
        --end;
        continue;
      }
      int start = end;
      while (start > 0 && !wanted(rows_[static_cast<std::size_t>(start - 1)])) --start;
      beginRemoveRows({}, start, end);
      rows_.erase(rows_.begin() + start, rows_.begin() + end + 1);
      endRemoveRows();
      end = start - 1;
    }
    // Merge: refresh equal keys, insert runs of new ones.
    std::size_t k = 0;
    std::size_t i = 0;
    int changedFrom = -1;
    auto flushChanged = [&](std::size_t upTo) {
      if (changedFrom < 0) return;
      emit this->dataChanged(this->index(changedFrom, 0), this->index(static_cast<int>(upTo) - 1, this->columnCount() - 1));
      changedFrom = -1;
    };
    while (i < fresh.size()) {
      if (k < rows_.size() && !(rows_[k].key() < fresh[i].key()) && !(fresh[i].key() < rows_[k].key())) {
        if (!(rows_[k] == fresh[i])) {
          rows_[k] = std::move(fresh[i]);
          if (changedFrom < 0) changedFrom = static_cast<int>(k);
        } else {
          flushChanged(k);
        }
        ++k;
        ++i;
        continue;
      }
      flushChanged(k);
      std::size_t stop = i;
      while (stop < fresh.size() &&
             !(k < rows_.size() && !(rows_[k].key() < fresh[stop].key()) && !(fresh[stop].key() < rows_[k].key())))
        ++stop;
      const int first = static_cast<int>(k);
      beginInsertRows({}, first, first + static_cast<int>(stop - i) - 1);
      rows_.insert(rows_.begin() + first, std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(i)),
                   std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(stop)));
      endInsertRows();
      k += stop - i;
      i = stop;
    }
    flushChanged(k);
  }

  std::vector<Row> rows_;
};

}  // namespace actorscope::views
