// The layer arrows stay one-way (docs/architecture.md): units <- spec <- model <- eval <- plan <-
// api, io -> spec/model, report -> eval/plan/measure, measure -> spec; and no CLI flag is spelled
// under src/ or include/ (front ends render field keys their own way).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path{TB_TEST_DIR}.parent_path();

// What each layer may include, itself included.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> kAllowed{
      {"units", {"units"}},
      {"spec", {"units", "spec"}},
      {"model", {"units", "spec", "model"}},
      {"eval", {"units", "spec", "model", "eval"}},
      {"plan", {"units", "spec", "model", "eval", "plan"}},
      {"io", {"units", "spec", "model", "io"}},
      {"measure", {"units", "spec", "measure"}},
      {"report", {"units", "spec", "model", "eval", "plan", "measure", "report"}},
      {"api", {"units", "spec", "model", "eval", "plan", "io", "api"}},
      // The web server is a front end beside the CLI (docs/architecture.md): it sits on api.
      {"server", {"units", "spec", "model", "eval", "plan", "io", "api", "report", "server"}},
  };
  return kAllowed;
}

std::string text_of(const fs::path& file) {
  std::ifstream in{file};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every (layer, file) of the library: include/trainbudget/<layer>/ and src/<layer>/.
std::vector<std::pair<std::string, fs::path>> library_files() {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const fs::path& base : {kRoot / "include" / "trainbudget", kRoot / "src"}) {
    for (const auto& layer : fs::directory_iterator(base)) {
      if (!layer.is_directory()) continue;
      for (const auto& f : fs::recursive_directory_iterator(layer.path())) {
        const std::string ext = f.path().extension().string();
        if (ext == ".hpp" || ext == ".cpp") {
          out.emplace_back(layer.path().filename().string(), f.path());
        }
      }
    }
  }
  return out;
}

TEST(Layers, IncludesPointOneWay) {
  const std::regex include{R"re(#include "trainbudget/([a-z_]+)/)re"};
  std::size_t files = 0;
  for (const auto& [layer, file] : library_files()) {
    ++files;
    const auto rule = allowed().find(layer);
    ASSERT_NE(rule, allowed().end()) << file << ": a layer docs/architecture.md does not name";
    const std::string text = text_of(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
         it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1];
      EXPECT_TRUE(rule->second.contains(target))
          << file.lexically_relative(kRoot) << " (" << layer << ") includes " << target;
    }
  }
  EXPECT_GT(files, 100U);
}

TEST(Layers, NoCliFlagIsSpelledInTheLibrary) {
  // A string literal holding --word: a flag. Other tools' flags quoted as sources are allowed
  // by name (Megatron-LM's --accumulate-allreduce-grads-in-fp32).
  const std::regex flag{R"re("[^"\n]*--[a-z][^"\n]*")re"};
  const std::regex cited{R"re(Megatron-LM --accumulate-allreduce-grads-in-fp32)re"};
  for (const auto& [layer, file] : library_files()) {
    const std::string text = text_of(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), flag);
         it != std::sregex_iterator(); ++it) {
      const std::string literal = it->str();
      if (std::regex_search(literal, cited)) continue;
      ADD_FAILURE() << file.lexically_relative(kRoot) << ": " << literal;
    }
  }
}

// The physics builds no sentences (issue 20, item 7): eval's results hold notes as codes and
// numbers (eval/note.hpp) and report/ words them, so no eval header declares a list of
// assumptions or notes as strings, and no eval file reaches for report/.
TEST(Layers, EvalReturnsCodesNotSentences) {
  const std::regex words{R"re(std::vector<std::string>\s+(assumptions|notes)\b)re"};
  const std::regex label{R"re(std::string\s+(formula|gemm_source|at)\s*;)re"};
  for (const auto& [layer, file] : library_files()) {
    if (layer != "eval") continue;
    const std::string text = text_of(file);
    EXPECT_FALSE(std::regex_search(text, words)) << file.lexically_relative(kRoot);
    EXPECT_EQ(text.find("trainbudget/report/"), std::string::npos)
        << file.lexically_relative(kRoot);
    if (file.filename() == "estimate.hpp" || file.filename() == "peak_memory.hpp" ||
        file.filename() == "inference.hpp") {
      EXPECT_FALSE(std::regex_search(text, label)) << file.lexically_relative(kRoot);
    }
  }
}

}  // namespace
