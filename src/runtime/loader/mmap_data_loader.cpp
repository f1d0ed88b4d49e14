#include "runtime/loader/mmap_data_loader.h"

// To be written (runtime issue): this file only keeps the target building.
