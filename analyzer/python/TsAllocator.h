// tree-sitter's allocations go to per-thread free lists (TsAllocator.cpp).
#pragma once

namespace sl::py {

// Installs the allocator once per process; call before any tree-sitter object is created.
void installTreeSitterAllocator();

}  // namespace sl::py
