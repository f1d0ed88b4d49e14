#include "runtime/module/module.h"

// To be written (runtime issue): this file only keeps the target building.
