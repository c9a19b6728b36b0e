// Writes C++/CUDA snippets to a temporary directory, runs them through the plugin's entry point
// (the same call `streamlint check` makes after dlopen), and gives tests the lowered model.
// Lines in snippets are addressed by markers: a line ending in `// @name` is line("name").
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ModelDump.h"
#include "cxx/CxxPlugin.h"

extern "C" void streamlint_cxx_analyze(const sl::cxx::Request&, sl::cxx::Result&);

namespace sl::test {

class Snippets {
 public:
  explicit Snippets(const std::string& tag) {
    dir_ = std::filesystem::temp_directory_path() / ("sl-cxx-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  ~Snippets() { std::filesystem::remove_all(dir_); }

  // `input`: false for headers the snippets include (not analysed on their own).
  std::string add(const std::string& name, const std::string& text, bool input = true) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    texts_[path] = text;
    if (!input) headers_.insert(path);
    return path;
  }

  // Analyses every added file in one request (parallel TUs, as the CLI does).
  void analyze(const std::vector<std::string>& extraArgs = {}) {
    cxx::Request req;
    for (const auto& [p, t] : texts_)
      if (!headers_.count(p)) req.files.push_back(p);
    req.extraArgs = extraArgs;
    req.jobs = 2;
#ifdef SL_DEPS_DIR
    if (!getenv("LIBTORCH")) req.libtorchDir = std::string(SL_DEPS_DIR) + "/libtorch-headers";
#endif
    streamlint_cxx_analyze(req, result_);
  }

  const cxx::Result& result() const { return result_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The dump of function `fn` in file `name`, or a message naming what is missing.
  std::string function(const std::string& name, const std::string& fn) const {
    for (const auto& m : result_.modules)
      if (m.path == path(name))
        for (const auto& f : m.functions)
          if (f.name == fn) return dumpFunction(f);
    return "<no function " + fn + " in " + name + ">";
  }

  unsigned line(const std::string& name, const std::string& marker) const {
    std::istringstream in(texts_.at(path(name)));
    unsigned n = 1;
    for (std::string l; std::getline(in, l); ++n)
      if (l.size() >= marker.size() + 4 && l.ends_with("// @" + marker)) return n;
    ADD_FAILURE() << "no marker @" << marker << " in " << name;
    return 0;
  }

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::string> texts_;
  std::set<std::string> headers_;
  cxx::Result result_;
};

}  // namespace sl::test
