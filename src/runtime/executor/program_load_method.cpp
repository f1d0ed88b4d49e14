// Program::load_method, apart from program.cpp so that an app that only
// reads a Program (or its MethodMeta) does not link the Method machinery.
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace kiln::runtime {

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory_manager) const {
  KILN_ASSIGN_OR_RETURN(const executorch_flatbuffer::ExecutionPlan* plan, find_plan(method_name));
  return Method::load(plan, this, memory_manager);
}

}  // namespace kiln::runtime
