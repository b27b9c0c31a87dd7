// Item-data roles shared by the observatory's models, so a view can ask any of them for the actor
// behind a row without knowing which model it is.
#pragma once

#include <Qt>

namespace actorscope::views {

enum Role : int {
  ActorIdRole = Qt::UserRole + 1,  ///< QVariant<ActorId>: the actor this row is about (invalid if none)
  HealthRole,                      ///< int(Health)
  SortRole,                        ///< a value that sorts numerically (counts, durations in ns)
  SearchRole,                      ///< text a search matches: name, type, id
  KindRole,                        ///< a model-specific category (event kind, warning kind, node kind)
};

}  // namespace actorscope::views
