// Lowers a parsed translation unit into the StreamModel: every function defined in the main
// file becomes a model::Function (templates as written, instantiations skipped; kernels and
// device-only functions skipped: they issue no stream operations). The lowering never judges.
#pragma once
#include <string>

#include "model/StreamModel.h"

namespace clang {
class ASTContext;
}

namespace sl::cxx {

struct LowerOptions {
  // Built with --default-stream per-thread (CUDA_API_PER_THREAD_DEFAULT_STREAM): an omitted or
  // 0 stream is the per-thread default stream, not the legacy one.
  bool perThreadDefaultStream = false;
};

model::Module lowerMainFile(clang::ASTContext& ctx, const std::string& path,
                            const LowerOptions& opts);

}  // namespace sl::cxx
