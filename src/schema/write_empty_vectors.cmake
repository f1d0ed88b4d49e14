# Edits flatc's generated Pack functions so that they write every vector
# field, even an empty one (see CMakeLists.txt). Usage: cmake -DHEADER=... -P this
file(READ "${HEADER}" text)
# The two that stay optional, as ExecuTorch writes them.
string(REPLACE "_o->stacktrace.size() ?" "_o->stacktrace.size() ?@" text "${text}")
string(REPLACE "_o->non_const_buffer_device.size() ?" "_o->non_const_buffer_device.size() ?@" text "${text}")
string(REGEX REPLACE "= _o->[a-z_]+\\.size\\(\\) \\? (_fbb\\.CreateVector[^\n]*) : 0;" "= \\1;" text "${text}")
string(REPLACE "?@" "?" text "${text}")
file(WRITE "${HEADER}" "${text}")
