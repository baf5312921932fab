// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// --help covers every flag: each option of each command (as the parser knows them, read from
// the generated completion script) is listed with a description in that command's help, in
// `wasinn --help-all`, and in the man page generated from it.
#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_test_env.h"

namespace wasinn_cli_test {
namespace {

// Command path ("" for the top level, "models inspect") -> every option spelling it takes.
std::map<std::string, std::set<std::string>> options_by_command() {
  const ChildResult bash = wasinn({"completion", "bash"});
  EXPECT_EQ(bash.exit_code, 0) << bash.describe();
  std::map<std::string, std::set<std::string>> out;
  const std::regex line(R"re(^ +"([a-z ]*)"\) echo "([^"]*)" ;;$)re");
  std::istringstream in(bash.out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    std::istringstream words(m[2].str());
    auto& options = out[m[1].str()];
    for (std::string w; words >> w;) {
      if (w[0] == '-') options.insert(w);
    }
  }
  return out;
}

// The options a help text lists, each with whether a description follows it (on its line
// after a gap, or on the next line when the names are long).
std::map<std::string, bool> described_options(const std::string& help) {
  std::vector<std::string> lines;
  std::istringstream in(help);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::map<std::string, bool> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("  -", 0) != 0) continue;
    const size_t gap = l.find("  ", 2);
    const bool same_line = gap != std::string::npos && l.find_first_not_of(' ', gap) != std::string::npos;
    const bool next_line = i + 1 < lines.size() && lines[i + 1].rfind(std::string(20, ' '), 0) == 0 &&
                           lines[i + 1].find_first_not_of(' ') != std::string::npos;
    std::string names = l.substr(2, l.find(' ', 2) - 2);
    std::istringstream split(names);
    for (std::string name; std::getline(split, name, ',');) out[name] = same_line || next_line;
  }
  return out;
}

std::vector<std::string> words_of(const std::string& path) {
  std::vector<std::string> words;
  std::istringstream in(path);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

TEST(Help, EveryOptionOfEveryCommandHasADescription) {
  const auto commands = options_by_command();
  ASSERT_TRUE(commands.count("run") && commands.count("serve") && commands.count("backends") &&
              commands.count("models inspect") && commands.count("pull"))
      << "the completion script no longer lists the commands";
  for (const auto& [path, options] : commands) {
    if (path == "help") continue;  // `wasinn help` itself: answered before parsing, it has no flags
    std::vector<std::string> args{"help"};
    for (const auto& w : words_of(path)) args.push_back(w);
    const ChildResult r = wasinn(args);
    ASSERT_EQ(r.exit_code, 0) << path << "\n" << r.describe();
    EXPECT_NE(r.out.find("Usage: wasinn" + (path.empty() ? "" : " " + path)), std::string::npos)
        << "the usage line names the whole command\n"
        << r.out;
    const auto described = described_options(r.out);
    for (const auto& option : options) {
      const auto it = described.find(option);
      ASSERT_NE(it, described.end()) << "'wasinn help " << path << "' does not list " << option << "\n" << r.out;
      EXPECT_TRUE(it->second) << option << " of '" << path << "' has no description\n" << r.out;
    }
  }
}

TEST(Help, HelpAllAndTheManPageListEveryFlag) {
  const auto commands = options_by_command();
  const ChildResult all = wasinn({"--help-all"});
  ASSERT_EQ(all.exit_code, 0) << all.describe();
  std::string man;
  if (std::string(WASINN_MAN_PAGE).empty()) {
    std::cerr << "help2man was not found at configure time: no man page to check\n";
  } else {
    man = read_text(WASINN_MAN_PAGE);
    EXPECT_NE(man.find(".TH WASINN \"1\""), std::string::npos) << man.substr(0, 400);
    man.erase(std::remove(man.begin(), man.end(), '\\'), man.end());  // roff writes \- for -
  }
  for (const auto& [path, options] : commands) {
    for (const auto& option : options) {
      EXPECT_NE(all.out.find(option), std::string::npos) << option << " of '" << path << "' is not in --help-all";
      if (!man.empty() && option.rfind("--", 0) == 0) {
        EXPECT_NE(man.find(option), std::string::npos) << option << " of '" << path << "' is not in the man page";
      }
    }
  }
  for (const char* command : {"run", "serve", "backends", "models", "inspect", "pull", "completion"}) {
    EXPECT_NE(all.out.find(command), std::string::npos) << command;
  }
}

// Every value of an option with a fixed set (the completion script's table, made from the
// parser's own checks) is taken: `wasinn PATH OPTION VALUE --help` exits 0, as the values are
// checked before the help is printed. (--target npu once got through and then was called tpu.)
TEST(Help, EveryFixedValueOfEveryOptionIsTaken) {
  const ChildResult bash = wasinn({"completion", "bash"});
  ASSERT_EQ(bash.exit_code, 0) << bash.describe();
  const size_t start = bash.out.find("_wasinn_values() {");
  ASSERT_NE(start, std::string::npos) << bash.out.substr(0, 400);
  const std::string table = bash.out.substr(start, bash.out.find("esac", start) - start);
  const std::regex row(R"re("([a-z ]*) (-[-a-zA-Z0-9]+)"\) echo "([^"]*)" ;;)re");
  int taken = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
    std::vector<std::string> args = words_of((*it)[1].str());
    args.push_back((*it)[2].str());
    std::istringstream values((*it)[3].str());
    for (std::string value; values >> value;) {
      std::vector<std::string> with = args;
      with.insert(with.end(), {value, "--help"});
      const ChildResult r = wasinn(with);
      EXPECT_EQ(r.exit_code, 0) << (*it)[1] << " " << (*it)[2] << " " << value << " is offered\n" << r.describe();
      ++taken;
    }
  }
  EXPECT_GE(taken, 20) << table;  // --log-level's, --target's, --encoding's... at least
}

// A target the user spelled npu is named so when a plugin refuses wasi-nn's tpu.
TEST(Help, TargetNpuIsNamedAsTyped) {
  const auto model = fixture("digits/model.onnx");
  if (!model || !ort_plugin_built()) GTEST_SKIP() << "needs the digits fixture and the ONNX Runtime plugin";
  const ChildResult r = wasinn({"models", "inspect", "--target", "npu", model->string()});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("--target npu is wasi-nn's tpu"), std::string::npos) << r.describe();
}

// The man page's EXIT STATUS is docs/cli.md's table, every row of it.
TEST(Help, TheManPageSaysEveryExitStatusTheDocsDo) {
  if (std::string(WASINN_MAN_PAGE).empty()) GTEST_SKIP() << "help2man was not found at configure time: no man page";
  const std::string man = read_text(WASINN_MAN_PAGE);
  const size_t section = man.find(".SH \"EXIT STATUS\"");
  ASSERT_NE(section, std::string::npos) << "no EXIT STATUS section";
  const std::string doc = read_text(WASINN_CLI_DOC);
  const size_t table = doc.find("\n## Exit codes\n");
  ASSERT_NE(table, std::string::npos);
  const std::regex row(R"(\n\| ([^|]*[^| ]) \| )");
  int rows = 0;
  for (auto it = std::sregex_iterator(doc.begin() + table, doc.begin() + doc.find("\n## ", table + 1), row);
       it != std::sregex_iterator(); ++it) {
    const std::string code = (*it)[1].str();
    if (code == "code" || code[0] == '-') continue;
    std::string want = code;
    want.erase(std::remove(want.begin(), want.end(), '`'), want.end());
    EXPECT_NE(man.find("\\fB" + want + "\\fR", section), std::string::npos) << want << " is not in EXIT STATUS";
    ++rows;
  }
  EXPECT_GE(rows, 7);
}

}  // namespace
}  // namespace wasinn_cli_test
