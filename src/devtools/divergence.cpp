#include "devtools/divergence.h"

namespace kiln::devtools {

const CompareRow* first_divergence(const Comparison& comparison, double threshold_db) {
  const CompareRow* first = nullptr;
  for (const CompareRow& row : comparison.rows) {
    if (row.note.empty() && row.snr_db < threshold_db && (first == nullptr || row.order < first->order)) first = &row;
  }
  return first;
}

}  // namespace kiln::devtools
