// Kernel names as people read them. CUPTI reports the mangled symbol
// ("_ZN2at6native...EEvT_"); the report writers show "void at::native::...(...)".
#pragma once
#include <string>

namespace sl::runtime {

// The demangled name of an Itanium-mangled symbol; any other name (already readable, "copy HtoD",
// or not demanglable) unchanged.
std::string readableKernelName(const std::string& name);

}  // namespace sl::runtime
