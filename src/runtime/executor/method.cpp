#include "runtime/executor/method.h"

// To be written (runtime issue): this file only keeps the target building.
