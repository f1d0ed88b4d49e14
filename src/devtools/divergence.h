// Where a comparison's numbers first part from the reference: the earliest
// compared op in program order whose SNR is below a threshold. The ops after
// it in program order usually inherit its error, so it is where to look.
#pragma once

#include "devtools/compare.h"

namespace kiln::devtools {

/// The compared row (no note) with the lowest order among those whose SNR is
/// below `threshold_db`; null when every compared row is at or above it.
const CompareRow* first_divergence(const Comparison& comparison, double threshold_db);

}  // namespace kiln::devtools
