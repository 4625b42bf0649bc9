// Command-line parsing (DESIGN.md §3).
#include <gtest/gtest.h>

#include "app/cli.hpp"

using namespace cyclocc::app;

TEST(CommandLine, InputAndAllFlags) {
  auto cl = parse_command_line({"water.yaml", "--json", "out.json", "--checkpoint=c.h5", "--restart", "-v"});
  EXPECT_EQ(cl.action, CliAction::Run);
  EXPECT_EQ(cl.options.input, "water.yaml");
  EXPECT_EQ(cl.options.json.value_or(""), "out.json");
  EXPECT_EQ(cl.options.checkpoint.value_or(""), "c.h5");
  EXPECT_TRUE(cl.options.restart);
  EXPECT_TRUE(cl.options.verbose);
}

TEST(CommandLine, DefaultsLeaveTheYamlInCharge) {
  auto cl = parse_command_line({"water.yaml"});
  EXPECT_FALSE(cl.options.json.has_value());
  EXPECT_FALSE(cl.options.checkpoint.has_value());
  EXPECT_FALSE(cl.options.restart);
  EXPECT_FALSE(cl.options.verbose);
  // Flags may come first.
  EXPECT_EQ(parse_command_line({"--restart", "w.yaml"}).options.input, "w.yaml");
}

TEST(CommandLine, HelpAndVersionNeedNoInput) {
  EXPECT_EQ(parse_command_line({"--help"}).action, CliAction::Help);
  EXPECT_EQ(parse_command_line({"-h"}).action, CliAction::Help);
  EXPECT_EQ(parse_command_line({"--version"}).action, CliAction::Version);
  EXPECT_EQ(parse_command_line({"--version", "--help"}).action, CliAction::Help);
  EXPECT_NE(usage_text().find("cyclocc INPUT.yaml"), std::string::npos);
}

TEST(CommandLine, ErrorsAreOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"w.yaml", "--frobnicate"},
                                             {"w.yaml", "-x"},
                                             {"w.yaml", "--json"},
                                             {"w.yaml", "--json="},
                                             {"w.yaml", "--restart=yes"},
                                             {"a.yaml", "b.yaml"},
                                             {},
                                             {"-v"}}) {
    try {
      parse_command_line(args);
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(args);
    } catch (const CliError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  try {
    parse_command_line({"w.yaml", "--frobnicate"});
  } catch (const CliError& e) {
    EXPECT_NE(std::string(e.what()).find("--frobnicate"), std::string::npos);
  }
}

// "--json --restart" used to write the results to a file named --restart,
// not restart, and replace the checkpoint with a fresh one.
TEST(CommandLine, AFlagIsNotAFileName) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"w.yaml", "--json", "--restart"}, {"w.yaml", "--checkpoint", "-v"}, {"--json", "-x", "w.yaml"}}) {
    try {
      parse_command_line(args);
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(args);
    } catch (const CliError& e) {
      EXPECT_NE(std::string(e.what()).find("needs a file name, not the option '" + args[args[0] == "w.yaml" ? 2 : 1]),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(parse_command_line({"w.yaml", "--json", "./--restart"}).options.json.value_or(""), "./--restart");
  EXPECT_FALSE(parse_command_line({"w.yaml", "--json", "./--restart"}).options.restart);
}

TEST(CommandLine, FilesNamedByALineThatDoesNotParse) {
  auto named = files_named({"w.yaml", "--frobnicate", "--json", "out.json", "--checkpoint=c.h5", "x.yaml"});
  EXPECT_EQ(named.words, (std::vector<std::string>{"w.yaml", "x.yaml"}));  // either may be the input
  EXPECT_EQ(named.json.value_or(""), "out.json");
  EXPECT_EQ(named.checkpoint.value_or(""), "c.h5");
  named = files_named({"--json=r.json", "--threads", "4", "w.yaml"});
  EXPECT_EQ(named.words, (std::vector<std::string>{"4", "w.yaml"}));  // an unknown flag's value too
  EXPECT_EQ(named.json.value_or(""), "r.json");
  // A flag without its value, or with a flag for one, names nothing.
  EXPECT_FALSE(files_named({"w.yaml", "--json"}).json.has_value());
  EXPECT_FALSE(files_named({"w.yaml", "--json="}).json.has_value());
  named = files_named({"w.yaml", "--json", "--verbose"});
  EXPECT_FALSE(named.json.has_value());
  EXPECT_EQ(named.words, (std::vector<std::string>{"w.yaml"}));
  EXPECT_FALSE(files_named({"--json=-v", "w.yaml"}).json.has_value());
  EXPECT_TRUE(files_named({}).words.empty());
}
