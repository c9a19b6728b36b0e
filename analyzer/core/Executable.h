// Where the running streamlint binary lives: its libraries (the C/C++ plugin, the recorder) and
// data ship beside it, <prefix>/bin/streamlint next to <prefix>/lib and <prefix>/share.
#pragma once
#include <string>

namespace sl {

// The directory of /proc/self/exe; "." when it cannot be read.
std::string executableDir();

}  // namespace sl
