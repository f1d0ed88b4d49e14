#include "runtime/executor/program_validation.h"

// To be written (runtime issue): this file only keeps the target building.
