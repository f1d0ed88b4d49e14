# Edits flatc's generated Pack functions so that they write every vector
# field, even an empty one, and the strings ExecuTorch always writes (see
# CMakeLists.txt). Usage: cmake -DHEADER=... -P this
file(READ "${HEADER}" text)
# The two that stay optional, as ExecuTorch writes them.
string(REPLACE "_o->stacktrace.size() ?" "_o->stacktrace.size() ?@" text "${text}")
string(REPLACE "_o->non_const_buffer_device.size() ?" "_o->non_const_buffer_device.size() ?@" text "${text}")
string(REGEX REPLACE "= _o->[a-z_]+\\.size\\(\\) \\? (_fbb\\.CreateVector[^\n]*) : 0;" "= \\1;" text "${text}")
string(REPLACE "?@" "?" text "${text}")
# Strings ExecuTorch always writes, even empty: a String value's string_val
# (both runtimes refuse a String without one: an empty string constant) and
# the pytree specs (a constant method's input spec is "").
foreach(field string_val encoded_inp_str encoded_out_str)
  string(REPLACE "_o->${field}.empty() ? 0 : _fbb.CreateString(_o->${field})" "_fbb.CreateString(_o->${field})"
         text "${text}")
endforeach()
file(WRITE "${HEADER}" "${text}")
