// The GPU configuration of a file's `#if` guards, for files no compile command describes.
// Projects that build for CPU and GPU keep their stream code behind their own macros
// (`#if defined(USE_GPU)`, `#ifdef WITH_CUDA`); parsed with no flags, that code is skipped and
// never checked. The macros whose guarded code works with CUDA streams are defined instead, and
// the findings of the file say so. No Clang headers: plain text work, unit-tested.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sl::cxx {

struct GpuGuards {
  std::vector<std::string> macros;  // to define (-DNAME), sorted
  unsigned line = 0;                // the first guard that asked for one (1-based), 0 when none
};

// Macros a conditional tests positively (`#ifdef X`, `#if defined(X) && ...`, `#if X`, the
// `#else` of `#ifndef X`) whose branch holds CUDA stream code (stream, event or guard types,
// `<<<` launches, async copies, CUDA headers). Left out: names reserved to the implementation
// (`__CUDACC__`, `_WIN32`: the compiler's, not the project's), macros the file defines itself,
// and names compared to values (`#if CUDA_VERSION >= 12000`: a header's version, not a switch).
// Nothing at all when stream code also lies outside every conditional (`#include`s aside): the
// file is GPU code in every configuration, and its switches are features (`#ifdef FIXED`).
GpuGuards gpuGuardMacros(std::string_view text);

// The note findings of such a file carry: which configuration was analysed and how to change it.
std::string gpuGuardsNote(const GpuGuards& g);

}  // namespace sl::cxx
