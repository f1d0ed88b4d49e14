#include "runtime/executor/method_meta.h"

// To be written (runtime issue): this file only keeps the target building.
