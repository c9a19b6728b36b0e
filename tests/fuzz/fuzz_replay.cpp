// Runs a fuzz target over files and directories of inputs without libFuzzer (any compiler): the
// CI replay of tests/fuzz/corpus/ and of the regression inputs make_inputs.py writes.
//   fuzz_replay_<target> [--suffix .py] PATH...   (--suffix: only such files of the directories)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  std::string suffix;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (std::string(argv[i]) == "--suffix" && i + 1 < argc) {
      suffix = argv[++i];
    } else if (fs::is_directory(argv[i], ec)) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file() && e.path().string().ends_with(suffix)) inputs.push_back(e.path());
    } else {
      inputs.emplace_back(argv[i]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  FILE* log = stderr;
  for (const auto& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) { std::fprintf(log, "fuzz_replay: cannot read %s\n", p.c_str()); return 2; }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(log, "fuzz_replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
    std::fflush(log);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(log, "fuzz_replay: %zu inputs, no crash\n", inputs.size());
  return inputs.empty() ? 2 : 0;
}
