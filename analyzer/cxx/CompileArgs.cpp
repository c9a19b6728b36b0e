// Compile-command handling. The policy for foreign flags is "keep what changes how the source
// parses (includes, macros, standard, language), drop the rest": a flag Clang's driver does not
// know is a hard error, while a dropped code-generation flag changes nothing we look at.
#include "cxx/CompileArgs.h"
#include "cxx/GpuGuards.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#ifndef SL_CLANG_RESOURCE_DIR
#define SL_CLANG_RESOURCE_DIR "/usr/lib/llvm-19/lib/clang/19"
#endif
#ifndef SL_DEFAULT_LIBTORCH
#define SL_DEFAULT_LIBTORCH ""
#endif

namespace fs = std::filesystem;

namespace sl::cxx {
namespace {

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

std::string ext(const std::string& path) { return fs::path(path).extension().string(); }

// nvcc options that take a value, written `-opt value` or `-opt=value`, and are irrelevant to
// parsing the host side (architectures, device linking, host compiler choice, diagnostics).
const std::set<std::string, std::less<>> kNvccDropWithValue = {
    "-o", "-ccbin", "--compiler-bindir", "-Xcudafe", "-Xptxas", "-Xnvlink", "-Xfatbin",
    "-Xarchive", "-Xlinker", "--linker-options", "-gencode", "--generate-code", "-arch",
    "--gpu-architecture", "-code", "--gpu-code", "-maxrregcount", "--maxrregcount", "-t",
    "--threads", "-MF", "-MT", "-MQ", "-odir", "--output-directory", "--dependency-output",
    "-rdc", "--relocatable-device-code", "--options-file", "-optf", "--diag-suppress",
    "-diag-suppress", "--split-compile", "-split-compile", "-ftz", "-prec-div", "-prec-sqrt",
    "-fmad", "--ftz", "--prec-div", "--prec-sqrt", "--fmad", "-Werror", "--Werror", "-lto",
    "--resource-usage", "-ldir", "-l", "-L", "--library-path", "--library", "--keep-dir",
    "-keep-dir", "--dlink-time-opt", "-dlto", "--static-global-template-stub",
    "-static-global-template-stub", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt"};

// nvcc options that take a value and map to a Clang flag: option -> Clang prefix.
const std::pair<std::string_view, std::string_view> kNvccMapWithValue[] = {
    {"-I", "-I"}, {"--include-path", "-I"}, {"-isystem", "-isystem"},
    {"--system-include", "-isystem"}, {"-D", "-D"}, {"--define-macro", "-D"}, {"-U", "-U"},
    {"--undefine-macro", "-U"}, {"-include", "-include"}, {"--pre-include", "-include"},
    {"-std", "-std="}, {"--std", "-std="}};

// Splits `-opt=value` / `-optvalue` / `-opt value` into the option's value; `i` advances past
// a separate value. Returns false when `arg` is not `opt` in any of these forms.
bool takeValue(const std::vector<std::string>& argv, size_t& i, std::string_view opt,
               bool allowJoined, std::string& value) {
  const std::string& a = argv[i];
  if (a == opt) {
    if (i + 1 < argv.size()) value = argv[++i];
    return true;
  }
  if (a.size() > opt.size() && a.compare(0, opt.size(), opt) == 0) {
    if (a[opt.size()] == '=') { value = a.substr(opt.size() + 1); return true; }
    if (allowJoined) { value = a.substr(opt.size()); return true; }
  }
  return false;
}

bool sameFile(const std::string& a, const std::string& b, const std::string& dir) {
  std::error_code ec;
  fs::path pa = fs::path(a).is_absolute() ? fs::path(a) : fs::path(dir) / a;
  fs::path pb = fs::path(b).is_absolute() ? fs::path(b) : fs::path(dir) / b;
  return pa.lexically_normal() == pb.lexically_normal() || fs::equivalent(pa, pb, ec);
}

// Host-compiler flags worth keeping, from gcc/clang command lines and nvcc's -Xcompiler.
bool keepHostFlag(const std::string& a) {
  static const std::string_view keep[] = {"-D", "-U", "-I", "-isystem", "-iquote", "-idirafter",
                                          "-include", "-std=", "-O", "-m", "-pthread",
                                          "-nostdinc", "--sysroot", "-stdlib", "-fopenmp",
                                          "-fno-exceptions", "-fexceptions", "-fno-rtti",
                                          "-frtti", "-fms-extensions", "-fsigned-char",
                                          "-funsigned-char", "-fPIC", "-fpic"};
  for (std::string_view k : keep)
    if (a.compare(0, k.size(), k) == 0) return true;
  return false;
}

std::string runAndRead(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Asks the user's python3 something, from `/` and isolated (-I: neither the current directory
// nor PYTHON* variables on sys.path): `streamlint check .` on a repository holding a
// `sysconfig.py` or an `importlib/` once ran that code. `noSite` adds -S (no site-packages, no
// .pth files) for questions the standard library answers alone.
std::string probePython(const std::string& code, bool noSite) {
  return runAndRead(std::string("cd / && python3 -I ") + (noSite ? "-S " : "") + "-c \"" + code + "\" 2>/dev/null");
}

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

}  // namespace

bool isCudaFile(const std::string& p) { return ext(p) == ".cu" || ext(p) == ".cuh"; }

bool isHeaderFile(const std::string& p) {
  std::string e = ext(p);
  return e == ".h" || e == ".hh" || e == ".hpp" || e == ".hxx" || e == ".cuh";
}

bool isCxxInput(const std::string& p) {
  std::string e = ext(p);
  return isHeaderFile(p) || e == ".c" || e == ".cc" || e == ".cpp" || e == ".cxx" ||
         e == ".cu" || e == ".C";
}

std::vector<std::string> splitCommand(const std::string& cmd) {
  std::vector<std::string> out;
  std::string cur;
  bool any = false;
  char quote = 0;
  for (size_t i = 0; i < cmd.size(); ++i) {
    char c = cmd[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0; else cur += c;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < cmd.size() && std::string_view("\"\\$`").find(cmd[i + 1]) != std::string_view::npos) cur += cmd[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c; any = true;
    } else if (c == '\\' && i + 1 < cmd.size()) {
      cur += cmd[++i]; any = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (any || !cur.empty()) out.push_back(cur);
      cur.clear(); any = false;
    } else {
      cur += c;
    }
  }
  if (any || !cur.empty()) out.push_back(cur);
  return out;
}

bool loadCompileDb(const std::string& dirOrFile, std::vector<CompileDbEntry>& out,
                   std::string& error) {
  fs::path p = dirOrFile;
  if (isDir(p)) p /= "compile_commands.json";
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) { error = "cannot read " + p.string() + ": not a regular file"; return false; }
  std::ifstream in(p);
  if (!in) { error = "cannot read " + p.string(); return false; }
  // Parse without exceptions: this code runs inside a library whose callers may not expect them.
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) { error = p.string() + " is not a JSON array"; return false; }
  size_t index = 0;
  for (const auto& e : j) {
    ++index;
    if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) continue;
    CompileDbEntry entry;
    // Its files and flags are relative to it: an entry whose directory is not text cannot be placed.
    if (e.contains("directory") && !e["directory"].is_string()) {
      error = p.string() + ": entry " + std::to_string(index) + ": \"directory\" is not a string";
      out.clear();
      return false;
    }
    entry.directory = e.value("directory", std::string());
    entry.file = e["file"].get<std::string>();
    if (e.contains("arguments") && e["arguments"].is_array()) {
      for (const auto& a : e["arguments"]) if (a.is_string()) entry.argv.push_back(a.get<std::string>());
    } else if (e.contains("command") && e["command"].is_string()) {
      entry.argv = splitCommand(e["command"].get<std::string>());
    }
    if (!fs::path(entry.file).is_absolute() && !entry.directory.empty())
      entry.file = (fs::path(entry.directory) / entry.file).lexically_normal().string();
    if (!entry.argv.empty()) out.push_back(std::move(entry));
  }
  return true;
}

std::vector<std::string> translateNvccArgs(const std::vector<std::string>& argv,
                                           const std::string& source) {
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string v;
    if (a == source || sameFile(a, source, "")) continue;
    if (a == "-c" || a == "-dc" || a == "-dw" || a == "--device-c" || a == "--compile") continue;
    if (takeValue(argv, i, "--default-stream", false, v) || takeValue(argv, i, "-default-stream", false, v)) {
      // nvcc defines this macro for `--default-stream per-thread`; the lowering reads it to know
      // what an omitted launch stream means.
      if (v == "per-thread") out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      continue;
    }
    if (takeValue(argv, i, "-Xcompiler", false, v) || takeValue(argv, i, "--compiler-options", false, v)) {
      std::stringstream ss(v);
      for (std::string f; std::getline(ss, f, ',');)
        if (keepHostFlag(f)) out.push_back(f);
      continue;
    }
    if (takeValue(argv, i, "-x", false, v) || takeValue(argv, i, "--x", false, v)) {
      out.push_back("-x");
      out.push_back(v == "cu" ? "cuda" : v);
      continue;
    }
    bool handled = false;
    for (auto [opt, clang] : kNvccMapWithValue) {
      // Short options (-I, -D, -U) also come joined: -Ifoo.
      bool joined = opt.size() == 2;
      if (takeValue(argv, i, opt, joined, v)) {
        if (clang.back() == '=' || joined) out.push_back(std::string(clang) + v);
        else { out.push_back(std::string(clang)); out.push_back(v); }
        handled = true;
        break;
      }
    }
    if (handled) continue;
    for (const auto& opt : kNvccDropWithValue) {
      if (takeValue(argv, i, opt, false, v)) { handled = true; break; }
    }
    if (handled) continue;
    // Optimization level changes __OPTIMIZE__; everything else nvcc-specific is dropped.
    if (startsWith(a, "-O") || a == "-m64") out.push_back(a);
  }
  return out;
}

std::vector<std::string> translateCompilerArgs(const std::vector<std::string>& argv,
                                               const std::string& source) {
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == source || sameFile(a, source, "")) continue;
    if (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ") { ++i; continue; }
    if (a == "-x" || a == "-isystem" || a == "-I" || a == "-include" || a == "-iquote" ||
        a == "-idirafter" || a == "-D" || a == "-U") {
      if (i + 1 < argv.size()) { out.push_back(a); out.push_back(argv[++i]); }
      continue;
    }
    if (keepHostFlag(a) || startsWith(a, "-x") || startsWith(a, "--cuda") ||
        startsWith(a, "--offload") || startsWith(a, "-W"))
      out.push_back(a);
  }
  return out;
}

std::string findCudaPath(const std::string& requested) {
  if (!requested.empty()) return requested;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(var); v && *v && fs::exists(fs::path(v) / "include/cuda_runtime.h"))
      return v;
  if (fs::exists("/usr/local/cuda/include/cuda_runtime.h")) return "/usr/local/cuda";
  std::string nvcc = runAndRead("command -v nvcc 2>/dev/null");
  if (!nvcc.empty()) return fs::path(nvcc).parent_path().parent_path().string();
  return "";
}

std::vector<std::string> defaultPythonPrefixes() {
  std::vector<std::string> out;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* v = std::getenv(var); v && *v) out.push_back(v);
  if (const char* h = std::getenv("HOME"); h && *h) {
    out.push_back(std::string(h) + "/.local");
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(h) / ".pyenv/versions", ec))
      out.push_back(e.path().string());
  }
  for (const char* p : {"/usr/local", "/usr", "/opt/conda"}) out.push_back(p);
  return out;
}

std::vector<std::string> installedTorchDirs(const std::vector<std::string>& prefixes, bool askPython) {
  std::vector<std::string> out;
  if (askPython) {
    // find_spec locates the package without importing it (importing torch takes seconds).
    // Site-packages is where torch lives: no -S here.
    std::string t = probePython(
        "import importlib.util as u; s=u.find_spec('torch'); print(s.submodule_search_locations[0] if s else '')",
        false);
    if (!t.empty()) out.push_back(t);
  }
  for (const auto& prefix : prefixes) {
    std::vector<fs::path> libs = {fs::path(prefix) / "lib/python3/dist-packages"};
    std::error_code ec;
    std::vector<fs::path> versions;
    for (const auto& e : fs::directory_iterator(fs::path(prefix) / "lib", ec))
      if (e.path().filename().string().rfind("python3.", 0) == 0) versions.push_back(e.path());
    // Newest Python first: python3.12 before python3.9.
    std::sort(versions.begin(), versions.end(), [](const fs::path& a, const fs::path& b) {
      auto minor = [](const fs::path& p) { return std::atoi(p.filename().string().c_str() + 8); };
      return minor(a) > minor(b);
    });
    for (const auto& v : versions) {
      libs.push_back(v / "site-packages");
      libs.push_back(v / "dist-packages");
    }
    for (const auto& lib : libs)
      if (fs::exists(lib / "torch/include/torch/csrc/api/include/torch/torch.h")) out.push_back((lib / "torch").string());
  }
  return out;
}

std::vector<std::string> findLibtorchIncludes(const std::string& requested,
                                              const std::string& fallback, bool& needsNoCmake,
                                              const std::vector<std::string>& installed) {
  std::vector<std::string> roots;
  if (!requested.empty()) roots.push_back(requested);
  else {
    if (const char* v = std::getenv("LIBTORCH"); v && *v) roots.push_back(v);
    roots.insert(roots.end(), installed.begin(), installed.end());
    if (!fallback.empty()) roots.push_back(fallback);
  }
  for (const fs::path root : roots) {
    // libtorch zip / site-packages/torch: include/; Debian extraction: usr/include; or the dir itself.
    for (const fs::path inc : {root / "include", root / "usr/include", root}) {
      if (!fs::exists(inc / "torch/csrc/api/include/torch/torch.h")) continue;
      needsNoCmake = !fs::exists(inc / "c10/cuda/impl/cuda_cmake_macros.h");
      return {inc.string(), (inc / "torch/csrc/api/include").string()};
    }
  }
  return {};
}

std::vector<std::string> findLibtorchIncludes(const std::string& requested,
                                              const std::string& fallback, bool& needsNoCmake) {
  return findLibtorchIncludes(requested, fallback, needsNoCmake,
                              requested.empty() ? installedTorchDirs(defaultPythonPrefixes(), true)
                                                : std::vector<std::string>{});
}

std::string findPythonInclude() {
  std::string inc = probePython("import sysconfig; print(sysconfig.get_paths()['include'])", true);
  if (!inc.empty() && fs::exists(fs::path(inc) / "Python.h")) return inc;
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator("/usr/include", ec))
    if (e.path().filename().string().rfind("python3.", 0) == 0 && fs::exists(e.path() / "Python.h"))
      found.push_back(e.path());
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    return std::atoi(a.filename().string().c_str() + 8) > std::atoi(b.filename().string().c_str() + 8);
  });
  return found.empty() ? std::string() : found[0].string();
}

std::string relaxTensorMapAlignment(const std::string& h) {
  size_t at = h.find("typedef struct CUtensorMap_st {");
  if (at == std::string::npos) return {};
  size_t end = h.find('}', at);
  if (end == std::string::npos) return {};
  std::string out = h;
  bool changed = false;
  for (const char* spelling : {"alignas(128)", "_Alignas(128)"}) {
    size_t p = out.find(spelling, at);
    if (p == std::string::npos || p > end) continue;
    std::string s(spelling);
    out.replace(p, s.size(), s.substr(0, s.size() - 4) + "64)");
    changed = true;
  }
  return changed ? out : std::string();
}

Toolchain discoverToolchain(const Request& req) {
  Toolchain tc;
  tc.resourceDir = SL_CLANG_RESOURCE_DIR;
  tc.cudaPath = findCudaPath(req.cudaPath);
  tc.libtorchIncludes =
      findLibtorchIncludes(req.libtorchDir, SL_DEFAULT_LIBTORCH, tc.libtorchNeedsNoCmakeConfig);
  if (!tc.libtorchIncludes.empty()) tc.pythonInclude = findPythonInclude();
  tc.shimDir = "/__streamlint__/cuda-shim";
  if (!tc.cudaPath.empty()) {
    fs::path h = fs::path(tc.cudaPath) / "include/cuda.h";
    std::ifstream in(h);
    std::stringstream text;
    text << in.rdbuf();
    tc.cudaHeaderText = relaxTensorMapAlignment(text.str());
    if (!tc.cudaHeaderText.empty()) {
      std::error_code ec;
      tc.cudaHeaderPaths.push_back(h.lexically_normal().string());
      fs::path real = fs::canonical(h, ec);
      if (!ec && real != h.lexically_normal()) tc.cudaHeaderPaths.push_back(real.string());
    }
  }
  return tc;
}

namespace {

// Flags every job gets: the resource dir (a LibTooling library does not find clang's own), no
// warnings (we only read errors), and the CUDA host-side set-up FACTS.md measured for CUDA 13.
void addCommonFlags(std::vector<std::string>& args, const std::string& file, bool cuda,
                    const Toolchain& tc) {
  args.push_back("-fsyntax-only");
  args.push_back("-resource-dir=" + tc.resourceDir);
  args.push_back("-w");
  args.push_back("-Qunused-arguments");
  args.push_back("-fno-caret-diagnostics");  // also silences clang's "N errors generated" line
  // No "too many errors" stop: after a missing header (skipped, Plugin.cpp) the errors are its
  // missing declarations, and the rest of the file is still worth analysing.
  args.push_back("-ferror-limit=0");
  if (cuda) {
    args.push_back("--cuda-host-only");
    if (!tc.cudaPath.empty()) {
      args.push_back("--cuda-path=" + tc.cudaPath);
      args.push_back("-isystem");
      args.push_back(tc.cudaPath + "/include/cccl");
    }
    args.push_back("-Wno-unknown-cuda-version");
    args.push_back("-isystem");
    args.push_back(tc.shimDir);  // texture_fetch_functions.h, removed in CUDA 13
    // Clang's CUDA wrapper leaves __CUDACC__ defined empty, so `#if __CUDACC__` (CUDA 13's
    // nccl_device/utility.h, and user code written for nvcc, which defines it as 1) is an error.
    args.push_back("-include");
    args.push_back(tc.shimDir + "/" + kCudaMacrosShim);
  }
}

void finishJob(CompileJob& job, const Toolchain& tc) {
  addCommonFlags(job.args, job.file, job.cuda, tc);
  if (job.cuda) { job.args.push_back("-x"); job.args.push_back("cuda"); }
  else if (isHeaderFile(job.file)) { job.args.push_back("-x"); job.args.push_back("c++"); }
  job.args.push_back(job.file);
}

}  // namespace

std::vector<std::string> projectIncludeDirs(const std::string& file) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path().lexically_normal();
  for (int depth = 0; depth < 8 && !dir.empty(); ++depth) {
    out.push_back(dir.string());
    if (isDir(dir / "include")) out.push_back((dir / "include").string());
    // The repository's root is the last place a project's own includes are relative to.
    if (fs::exists(dir / ".git", ec) || dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return out;
}

CompileJob defaultJob(const std::string& file, const Toolchain& tc,
                      const std::vector<std::string>& extraArgs) {
  CompileJob job;
  job.file = file;
  job.display = file;
  std::error_code ec;
  job.directory = fs::current_path(ec).string();
  job.cuda = isCudaFile(file);
  job.args = {ext(file) == ".c" ? "clang" : "clang++"};
  if (ext(file) != ".c") job.args.push_back("-std=c++17");
  if (!tc.cudaPath.empty()) { job.args.push_back("-isystem"); job.args.push_back(tc.cudaPath + "/include"); }
  for (const auto& inc : tc.libtorchIncludes) { job.args.push_back("-isystem"); job.args.push_back(inc); }
  if (!tc.libtorchIncludes.empty() && tc.libtorchNeedsNoCmakeConfig)
    job.args.push_back("-DC10_CUDA_NO_CMAKE_CONFIGURE_FILE");
  // torch/extension.h includes Python.h: every extension source needs Python's headers.
  if (!tc.libtorchIncludes.empty() && !tc.pythonInclude.empty()) {
    job.args.push_back("-isystem");
    job.args.push_back(tc.pythonInclude);
  }
  // Stream code behind the project's own GPU switches (`#if defined(USE_GPU)`) is what there
  // is to check: those switches are on, unless the user's flags name them (GpuGuards.h).
  if (std::ifstream in{file, std::ios::binary}) {
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    GpuGuards g = gpuGuardMacros(text);
    auto named = [&](const std::string& m) {
      for (const auto& a : extraArgs)
        if ((a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0) && a.substr(2, m.size()) == m &&
            (a.size() == m.size() + 2 || a[m.size() + 2] == '='))
          return true;
      return false;
    };
    g.macros.erase(std::remove_if(g.macros.begin(), g.macros.end(), named), g.macros.end());
    for (const auto& m : g.macros) job.args.push_back("-D" + m);
    if (!g.macros.empty()) {
      job.configuration = gpuGuardsNote(g);
      job.configurationLine = g.line;
    }
  }
  job.args.insert(job.args.end(), extraArgs.begin(), extraArgs.end());
  // Projects include their own headers from the repository root or an include/ beside it
  // (`#include "torchao/csrc/..."`): without a build's flags, the file's ancestors are searched
  // last, after everything else (-idirafter), so they never shadow a header found otherwise.
  // A directory the user already gave with -I stays theirs: Clang drops a user directory that
  // repeats a system one, and -idirafter's are system directories, so the project's headers
  // found there would pass for system headers (never inlined, their events unseen).
  auto given = [&](const std::string& dir) {
    for (size_t i = 0; i < extraArgs.size(); ++i) {
      const std::string& a = extraArgs[i];
      if (a == "-I" && i + 1 < extraArgs.size() && fs::path(extraArgs[i + 1]).lexically_normal() == fs::path(dir))
        return true;
      if (a.rfind("-I", 0) == 0 && a.size() > 2 && fs::path(a.substr(2)).lexically_normal() == fs::path(dir)) return true;
    }
    return false;
  };
  for (const auto& dir : projectIncludeDirs(file)) {
    if (given(dir)) continue;
    job.args.push_back("-idirafter");
    job.args.push_back(dir);
  }
  finishJob(job, tc);
  return job;
}

std::vector<CompileJob> planJobs(const Request& req, const Toolchain& tc,
                                 std::vector<Finding>& diagnostics) {
  std::vector<CompileJob> jobs;
  std::vector<CompileDbEntry> db;
  if (!req.compileDbDir.empty()) {
    std::string err;
    if (!loadCompileDb(req.compileDbDir, db, err)) {
      Finding f;
      f.ruleId = "input-error";
      f.severity = Severity::Error;
      f.path = req.compileDbDir;
      f.message = "cannot use the compilation database: " + err;
      diagnostics.push_back(std::move(f));
    }
  }
  auto fromEntry = [&](const CompileDbEntry& e) {
    CompileJob job;
    job.file = e.file;
    job.display = e.file;
    job.directory = e.directory;
    job.cuda = isCudaFile(e.file);
    std::string tool = fs::path(e.argv[0]).filename().string();
    bool nvcc = tool.find("nvcc") != std::string::npos;
    job.args = {fs::path(e.file).extension() == ".c" ? "clang" : "clang++"};
    auto flags = nvcc ? translateNvccArgs(e.argv, e.file) : translateCompilerArgs(e.argv, e.file);
    if (nvcc) job.cuda = true;
    // nvcc passes its toolkit's include dir implicitly; Clang needs it spelled out.
    Toolchain own = tc;
    if (nvcc && fs::path(e.argv[0]).has_parent_path())
      own.cudaPath = fs::path(e.argv[0]).parent_path().parent_path().string();
    if (job.cuda && !own.cudaPath.empty()) { job.args.push_back("-isystem"); job.args.push_back(own.cudaPath + "/include"); }
    job.args.insert(job.args.end(), flags.begin(), flags.end());
    job.args.insert(job.args.end(), req.extraArgs.begin(), req.extraArgs.end());
    finishJob(job, own);
    return job;
  };
  auto wanted = [&](const std::string& file, const std::string& dir) {
    if (!req.only) return true;
    for (const auto& o : *req.only)
      if (sameFile(file, o, dir)) return true;
    return false;
  };
  if (req.files.empty()) {
    for (const auto& e : db)
      if (wanted(e.file, e.directory)) jobs.push_back(fromEntry(e));
    return jobs;
  }
  for (const auto& file : req.files) {
    if (!wanted(file, "")) continue;
    // A walked file is relative to the current directory, an entry's to its `directory`.
    std::error_code ec;
    const std::string abs = fs::absolute(file, ec).string();
    const CompileDbEntry* hit = nullptr;
    for (const auto& e : db)
      if (sameFile(e.file, abs, e.directory)) { hit = &e; break; }
    jobs.push_back(hit ? fromEntry(*hit) : defaultJob(file, tc, req.extraArgs));
    jobs.back().display = file;  // report under the name the user gave
  }
  return jobs;
}

}  // namespace sl::cxx
