// The _kiln extension module: the compiler, the runtime and the devtools of
// Kiln for the kiln package (python/kiln/__init__.py adds the pieces written
// in Python). Each part is bound in its own file (bindings.h).
#include "bindings.h"

NB_MODULE(_kiln, m) {
  m.attr("__version__") = KILN_VERSION;
  kiln::python::bind_errors(m);
  kiln::python::bind_runtime(m);
  kiln::python::bind_lower(m);
  kiln::python::bind_devtools(m);
  kiln::python::bind_llm(m);
}
