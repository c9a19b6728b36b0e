#include "runtime/KernelName.h"

#include <cxxabi.h>

#include <cstdlib>

namespace sl::runtime {

std::string readableKernelName(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? std::string(d) : name;
  std::free(d);
  return out;
}

}  // namespace sl::runtime
