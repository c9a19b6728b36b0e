// The plugin entry point: plans one job per translation unit, parses them in parallel with
// Clang 19 LibTooling (one ToolInvocation per TU, each with its own FileManager), lowers each
// main file into a Module, and turns TUs that fail into `parse-error` findings.
// Nothing here may throw through LLVM frames (LLVM is built without exceptions).
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <mutex>
#include <thread>

#include "cxx/CompileArgs.h"
#include "cxx/CxxPlugin.h"
#include "cxx/Lowering.h"

namespace sl::cxx {
namespace {

// Keeps the first error (the one a user fixes first) and counts the rest.
class FirstErrorConsumer : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    fatal |= level == clang::DiagnosticsEngine::Fatal;
    if (!first.empty()) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    first = msg.str().str();
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      clang::PresumedLoc p = info.getSourceManager().getPresumedLoc(
          info.getSourceManager().getFileLoc(info.getLocation()));
      if (p.isValid()) {
        where = p.getFilename();
        line = p.getLine();
        col = p.getColumn();
      }
    }
  }
  std::string first, where;
  unsigned line = 0, col = 0;
  bool fatal = false;
};

// An `#include` of a header that is not there is skipped, not fatal: a stream checker run on a
// repository that was never built (third-party headers fetched at build time, generated ones)
// still reads the file's own code. Clang then reports what the header would have declared as
// ordinary errors, and the file is analysed as far as it parsed; the driver says which header
// was missing and how many files were analysed without it.
struct Missing {
  std::string first, file;  // the first header that was not found, and the file that includes it
  unsigned line = 0, count = 0;
  std::string includedAt() const { return file + ":" + std::to_string(line); }
};

class MissingHeaders : public clang::PPCallbacks {
 public:
  MissingHeaders(Missing& out, clang::SourceManager& sm) : out_(out), sm_(sm) {}
  bool FileNotFound(llvm::StringRef name) override {
    pending_ = name.str();
    ++out_.count;
    return true;
  }
  void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef name, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file, llvm::StringRef,
                          llvm::StringRef, const clang::Module*, bool, clang::SrcMgr::CharacteristicKind) override {
    if (file || pending_ != name || !out_.first.empty()) return;
    out_.first = pending_;
    clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getFileLoc(hash));
    if (p.isValid()) out_.file = p.getFilename(), out_.line = p.getLine();
  }

 private:
  Missing& out_;
  clang::SourceManager& sm_;
  std::string pending_;
};

class LowerConsumer : public clang::ASTConsumer {
 public:
  LowerConsumer(std::optional<model::Module>& out, std::string path, clang::Preprocessor& pp)
      : out_(out), path_(std::move(path)), pp_(pp) {}
  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    LowerOptions o;
    o.perThreadDefaultStream = pp_.isMacroDefined("CUDA_API_PER_THREAD_DEFAULT_STREAM");
    out_ = lowerMainFile(ctx, path_, o);
  }

 private:
  std::optional<model::Module>& out_;
  std::string path_;
  clang::Preprocessor& pp_;
};

class LowerAction : public clang::ASTFrontendAction {
 public:
  LowerAction(std::optional<model::Module>& out, Missing& missing, std::string path)
      : out_(out), missing_(missing), path_(std::move(path)) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    ci.getPreprocessor().addPPCallbacks(std::make_unique<MissingHeaders>(missing_, ci.getSourceManager()));
    return std::make_unique<LowerConsumer>(out_, path_, ci.getPreprocessor());
  }

 private:
  std::optional<model::Module>& out_;
  Missing& missing_;
  std::string path_;
};

struct JobResult {
  std::optional<model::Module> module;
  std::optional<Finding> diagnostic;
  bool analyzed = false;
};

JobResult runJob(const CompileJob& job, const Toolchain& tc, bool verbose) {
  JobResult r;
  // CUDA 13 dropped texture_fetch_functions.h, which clang 19's CUDA wrapper still includes:
  // an empty in-memory copy in a directory only this job sees.
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  mem->addFile(tc.shimDir + "/texture_fetch_functions.h", 0, llvm::MemoryBuffer::getMemBuffer(""));
  mem->addFile(tc.shimDir + "/" + kCudaMacrosShim, 0, llvm::MemoryBuffer::getMemBuffer(kCudaMacrosShimText));
  // CUDA 13's cuda.h with CUDA 12's CUtensorMap alignment, so that `alignas(64) CUtensorMap`
  // (written for CUDA 12, accepted by nvcc and GCC) parses (CompileArgs.h).
  for (const auto& path : tc.cudaHeaderPaths)
    mem->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(tc.cudaHeaderText, path));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(mem);
  if (!job.directory.empty()) overlay->setCurrentWorkingDirectory(job.directory);
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

  if (verbose) {
    std::string cmd;
    for (const auto& a : job.args) cmd += a + " ";
    llvm::errs() << "streamlint: " << cmd << "\n";
  }
  FirstErrorConsumer diags;
  Missing missing;
  clang::tooling::ToolInvocation inv(job.args, std::make_unique<LowerAction>(r.module, missing, job.display),
                                     files.get(), std::make_shared<clang::PCHContainerOperations>());
  inv.setDiagnosticConsumer(&diags);
  bool ok = inv.run();
  if (!diags.first.empty() || !ok || !r.module || missing.count) {
    Finding f;
    f.ruleId = "parse-error";
    f.severity = Severity::Error;
    f.path = job.display;
    std::string where = diags.where.empty() ? std::string()
        : diags.where + ":" + std::to_string(diags.line) + ":" + std::to_string(diags.col) + ": ";
    if (diags.where == job.file || diags.where == job.display) f.loc = {diags.line, diags.col};
    unsigned n = diags.getNumErrors();
    bool skipped = !(r.module && !diags.fatal);
    std::string cause = diags.first.empty() ? "the compiler did not run" : diags.first;
    if (missing.count) {
      // The errors that follow a missing header are its declarations: name the header.
      cause = "'" + missing.first + "' file not found" +
              (missing.count > 1 ? " (and " + std::to_string(missing.count - 1) + " more headers)" : "") +
              (n ? ", then " + std::to_string(n) + (n == 1 ? " error" : " errors") : "");
      where = missing.includedAt() + ": ";
      f.loc = missing.file == job.file || missing.file == job.display ? Loc{missing.line, 1} : Loc{};
      f.properties["missingHeader"] = missing.first;
      f.properties["includedAt"] = missing.includedAt();
    } else if (n > 1) {
      cause += " (and " + std::to_string(n - 1) + " more errors)";
    }
    // The file is already the diagnostic's place: name only another file (a header) where the
    // first error was, not the file again (it read "a.cpp:1:1: could not parse a.cpp: a.cpp:1:1: ...").
    if (f.loc.line) where.clear();
    else if (!where.empty()) where = "in " + where;
    f.message = "could not parse: " + where + cause +
                (skipped ? "; file skipped" : missing.count ? "; analysed what parsed, without the header" : "; analysed what parsed");
    f.properties["skipped"] = skipped;
    r.diagnostic = std::move(f);
  }
  // A fatal error (a missing include) stops parsing early: what is left is not the program.
  if (r.module && diags.fatal) r.module.reset();
  r.analyzed = r.module.has_value();
  return r;
}

}  // namespace
}  // namespace sl::cxx

extern "C" const char* streamlint_cxx_abi() {
  static const std::string stamp = sl::cxx::abiStamp();
  return stamp.c_str();
}

extern "C" void streamlint_cxx_analyze(const sl::cxx::Request& req, sl::cxx::Result& res) {
  using namespace sl::cxx;
  Toolchain tc = discoverToolchain(req);
  // STREAMLINT_PRINT_COMMANDS=1 prints each TU's command line (bench/cxx compares with clang++).
  const char* print = std::getenv("STREAMLINT_PRINT_COMMANDS");
  bool verbose = req.verbose || (print && *print && std::string(print) != "0");
  std::vector<CompileJob> jobs = planJobs(req, tc, res.diagnostics);
  res.translationUnits += jobs.size();
  std::vector<JobResult> results(jobs.size());
  unsigned n = req.jobs ? req.jobs : std::max(1u, std::thread::hardware_concurrency());
  n = std::min<unsigned>(n, unsigned(jobs.size()));
  std::atomic<size_t> next{0}, done{0};
  std::mutex printing;
  // Log progress (CI): the first file, then a line at most every 10 s, and the last; each with
  // the elapsed time (131 bare "[i/N] file" lines said neither how long nor how far).
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point printed = start;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      results[i] = runJob(jobs[i], tc, verbose);
      if (!req.progress) continue;
      std::lock_guard<std::mutex> lock(printing);
      size_t d = ++done;
      const Clock::time_point now = Clock::now();
      const double elapsed = std::chrono::duration<double>(now - start).count();
      if (req.progress == 1) std::fprintf(stderr, "\rstreamlint: %zu/%zu C/C++ files, %.0f s", d, jobs.size(), elapsed);
      else if (d == 1 || d == jobs.size() || now - printed >= std::chrono::seconds(10)) {
        std::fprintf(stderr, "streamlint: [%zu/%zu] %.1f s %s\n", d, jobs.size(), elapsed, jobs[i].display.c_str());
        printed = now;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (req.progress == 1 && !jobs.empty()) std::fprintf(stderr, "\n");
  // Merge in input order: output does not depend on the schedule.
  for (size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    if (r.module && !jobs[i].configuration.empty())
      res.configurations.push_back({r.module->path, jobs[i].configurationLine, jobs[i].configuration});
    if (r.module) res.modules.push_back(std::move(*r.module));
    if (r.diagnostic) res.diagnostics.push_back(std::move(*r.diagnostic));
    res.analyzed += r.analyzed;
  }
}
