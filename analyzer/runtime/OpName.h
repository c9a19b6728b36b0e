// A GPU op's name, interned (InternedString.h): every op of one kernel shares one string. A name
// of its own per op (kernel names run to 100+ bytes) was a third of what the report held per GPU op.
#pragma once
#include "runtime/InternedString.h"

namespace sl::runtime {

using OpName = InternedString;

}  // namespace sl::runtime
