// The user's Python line for a CUDA call, read without the GIL.
//
// Why not take the GIL: torch releases it before every ATen call, and its caching allocator calls
// cudaMalloc/cudaFree/cudaEventSynchronize under its own mutex; a GIL-holding thread waiting for
// that mutex would deadlock with us (FACTS.md). Instead we read the *calling thread's own* frame
// chain: it is frozen while this thread sits in a C call, and every object on it (frames, code
// objects, their filenames and line tables) is kept alive by that chain. Only immutable fields are
// read; nothing is written, no reference count touched, no API that needs the GIL is called.
//
// Struct offsets are CPython-version specific (3.11 to 3.15 here; other versions record no
// Python line and say so once). Each code object read is checked against &PyCode_Type, so a wrong
// offset turns attribution off instead of producing garbage.
//
// Lines are resolved offline: the hook records (code id, instruction byte offset) and, the first
// time a thread meets a code object, its filename, qualname, co_firstlineno and line table.
#pragma once
#include <cstdint>

#include "Recorder.h"

namespace sl::ip {

// Fills code id/offset of the innermost frame outside library code (installed packages, the
// standard library, generated code: PythonFrames.cpp), or of the innermost frame when all are. False when this thread runs no Python code.
bool capturePython(ThreadState* ts, uint32_t& codeId, uint32_t& offset);

// CPython is loaded in this process (meaningful once capturePython has run).
bool pythonProcess();

}  // namespace sl::ip
