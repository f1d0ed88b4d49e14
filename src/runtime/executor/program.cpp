#include "runtime/executor/program.h"

// To be written (runtime issue): this file only keeps the target building.
