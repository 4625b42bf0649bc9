// The cyclocc binary's exit codes and one-line errors (DESIGN.md §3), also
// under mpirun at 2 ranks (no hang, one line from rank 0).
#include "tests/app/program_fixture.hpp"

using namespace cyclocc::app_test;

TEST_F(ProgramTest, MissingInputFileIsExit2WithOneLine) {
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({"no_such_input.yaml", "--json", "fail.json"}, ranks);
    EXPECT_EQ(r.exit_code, 2) << "ranks " << ranks;
    expect_one_error_line(r, {"no_such_input.yaml"});
    // The results file was asked for on the command line, so it is written.
    const auto j = results("fail.json");
    EXPECT_FALSE(j["success"].as<bool>());
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "input_error");
    EXPECT_EQ(j["provenance"]["ranks"].as<int>(), ranks == 0 ? 1 : ranks);
  }
}

TEST_F(ProgramTest, UnknownFlagIsExit2WithOneLine) {
  const auto input = water_input("w");
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string(), "--frobnicate"}, ranks);
    EXPECT_EQ(r.exit_code, 2);
    expect_one_error_line(r, {"--frobnicate"});
    EXPECT_FALSE(fs::exists(path("w.h5")));
    EXPECT_FALSE(fs::exists(path("w.json")));
  }
  const auto r = cyclocc({});  // no input at all
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"no input file"});
}

TEST_F(ProgramTest, CommandLineErrorGetsTheResultsFileJsonNames) {
  const auto input = water_input("cl");
  const std::string before = read_text(input);
  for (int ranks : {0, 2}) {
    // --json after the bad flag, and as --json=FILE.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{input.string(), "--frobnicate", "--json", "flag.json"},
          std::vector<std::string>{"--json=flag.json", input.string(), "--restart=yes"}}) {
      fs::remove(path("flag.json"));
      const auto r = cyclocc(args, ranks);
      EXPECT_EQ(r.exit_code, 2);
      const std::string bad = args[1] == "--frobnicate" ? "--frobnicate" : "--restart=yes";
      expect_one_error_line(r, {bad});
      const auto j = results("flag.json");
      EXPECT_FALSE(j["success"].as<bool>());
      EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "input_error");
      EXPECT_NE(j["error"]["error_message"].as<std::string>().find(bad), std::string::npos);
      EXPECT_EQ(j["provenance"]["ranks"].as<int>(), ranks == 0 ? 1 : ranks);
      EXPECT_EQ(j["extras"]["warnings"].size(), 0u);
      EXPECT_FALSE(fs::exists(path("cl.json")));
      EXPECT_FALSE(fs::exists(path("cl.h5")));
    }
    // Never over a file the line names that may be the input (also after an
    // unknown flag's value, or as a second input), nor over the checkpoint;
    // one error line each.
    const std::string in = input.string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{in, "--frobnicate", "--json", in},
          std::vector<std::string>{"--threads", "4", in, "--json", in},
          std::vector<std::string>{"other.yaml", in, "--json", in}}) {
      const auto r = cyclocc(args, ranks);
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
      EXPECT_EQ(read_text(input), before) << ::testing::PrintToString(args);
    }
    const auto r = cyclocc({"--threads", "4", in, "--json", path("cl.h5").string()}, ranks);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(fs::exists(path("cl.h5")));  // the input's checkpoint
  }
}

TEST_F(ProgramTest, HelpAndVersionExit0) {
  auto r = cyclocc({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: cyclocc INPUT.yaml"), std::string::npos);
  EXPECT_EQ(r.err, "");
  r = cyclocc({"--version"}, 2);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("cyclocc ") + CYCLOCC_VERSION + "\n");  // printed once, by rank 0
}

TEST_F(ProgramTest, MalformedInputIsExit2WithOneLineAtOneAndTwoRanks) {
  write_text(path("syntax.yaml"), "title: broken\nmolecule: [unclosed\n");
  const auto bad_value = water_input("value", [](YAML::Node& in) { in["scf"]["convergence"] = -1.0; });
  const auto unknown_key = water_input("key", [](YAML::Node& in) { in["scf"]["frobnicate"] = 1; });
  for (int ranks : {0, 2}) {
    auto r = cyclocc({"syntax.yaml"}, ranks);
    EXPECT_EQ(r.exit_code, 2);
    expect_one_error_line(r, {"syntax.yaml"});
    r = cyclocc({bad_value.string(), "--json", "value.json"}, ranks);
    EXPECT_EQ(r.exit_code, 2);
    expect_one_error_line(r, {"value.yaml", "scf.convergence"});
    const auto j = results("value.json");
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "input_error");
    EXPECT_NE(j["error"]["error_message"].as<std::string>().find("scf.convergence"), std::string::npos);
    r = cyclocc({unknown_key.string()}, ranks);
    EXPECT_EQ(r.exit_code, 2);
    expect_one_error_line(r, {"key.yaml", "frobnicate"});
  }
}

TEST_F(ProgramTest, UnknownBasisIsAnInputErrorWithResults) {
  const auto input = water_input("nob", [](YAML::Node& in) { in["basis"] = "no-such-basis"; });
  const auto r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"no-such-basis"});
  // The input was read, so the results file is at its default place.
  const auto j = results("nob.json");
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "input_error");
  EXPECT_EQ(j["model"]["basis"].as<std::string>(), "no-such-basis");
  EXPECT_EQ(j["molecule"]["symbols"].size(), 3u);
}

TEST_F(ProgramTest, ScfThatDoesNotConvergeIsExit3WithTheLastEnergy) {
  const auto input = water_input("nc", [](YAML::Node& in) { in["scf"]["max_iterations"] = 2; });
  const auto r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 3);
  expect_one_error_line(r, {"SCF did not converge in 2 iterations (scf.max_iterations: 2;"});
  const auto j = results("nc.json");
  EXPECT_FALSE(j["success"].as<bool>());
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "convergence_error");
  EXPECT_EQ(j["properties"]["scf_iterations"].as<int>(), 2);
  const double last = j["properties"]["scf_total_energy"].as<double>();
  EXPECT_EQ(j["return_energy"].as<double>(), last);
  // Two iterations from the SAD guess are far from converged: the last energy
  // is above the converged one, and it is the one the log printed last.
  EXPECT_GT(last, reference_value(kWaterCase, "scf_total_energy") + 1e-6);
  char printed[32];
  std::snprintf(printed, sizeof printed, "%.12f", last);
  EXPECT_NE(r.out.find(printed), std::string::npos) << r.out;
  // An unconverged SCF is not checkpointed.
  EXPECT_FALSE(fs::exists(path("nc.h5")));
}

// CCSD end to end: energies against the reference, the results file's CC
// properties and per-iteration timings, at 1 and 2 ranks.
TEST_F(ProgramTest, CcsdEnergiesAndResults) {
  const auto input = water_input("cc", [](YAML::Node& in) { in["cc"]["method"] = "ccsd"; });
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string()}, ranks);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = results("cc.json");
    EXPECT_TRUE(j["success"].as<bool>());
    const auto p = j["properties"];
    EXPECT_NEAR(p["mp2_total_energy"].as<double>(), reference_value(kWaterCase, "mp2_total_energy"), 1e-8);
    EXPECT_NEAR(p["ccsd_total_energy"].as<double>(), reference_value(kWaterCase, "ccsd_total_energy"), 1e-8);
    EXPECT_NEAR(p["ccsd_correlation_energy"].as<double>() + p["scf_total_energy"].as<double>(),
                p["ccsd_total_energy"].as<double>(), 1e-12);
    EXPECT_EQ(j["return_energy"].as<double>(), p["ccsd_total_energy"].as<double>());
    const int iterations = p["ccsd_iterations"].as<int>();
    EXPECT_GT(iterations, 3);
    EXPECT_EQ(static_cast<int>(j["extras"]["timings"]["cc_iterations"].size()), iterations);
  }
}

// CCSD(T) and CCSDT end to end: the results file's properties against the
// references, and CCSDT's iteration timings (DESIGN.md §3: cc_iterations holds
// the CCSDT iterations, ccsd_iterations the CCSD ones before them).
TEST_F(ProgramTest, CcsdPrtAndCcsdtEnergiesAndResults) {
  const auto pt = water_input("pt", [](YAML::Node& in) { in["cc"]["method"] = "ccsd(t)"; });
  auto r = cyclocc({pt.string()}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = results("pt.json");
  EXPECT_NEAR(j["properties"]["ccsd_prt_pr_total_energy"].as<double>(),
              reference_value(kWaterCase, "ccsd_prt_pr_total_energy"), 1e-8);
  EXPECT_EQ(j["return_energy"].as<double>(), j["properties"]["ccsd_prt_pr_total_energy"].as<double>());
  EXPECT_TRUE(j["extras"]["timings"]["triples"].IsScalar());

  const auto t = water_input("t", [](YAML::Node& in) { in["cc"]["method"] = "ccsdt"; });
  r = cyclocc({t.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = results("t.json");
  const auto p = j["properties"];
  EXPECT_NEAR(p["ccsdt_total_energy"].as<double>(), reference_value("h2o_sto3g_rhf_ccsdt", "ccsdt_total_energy"),
              1e-8);
  EXPECT_NEAR(p["ccsd_total_energy"].as<double>(), reference_value(kWaterCase, "ccsd_total_energy"), 1e-8);
  EXPECT_EQ(j["return_energy"].as<double>(), p["ccsdt_total_energy"].as<double>());
  EXPECT_EQ(static_cast<int>(j["extras"]["timings"]["cc_iterations"].size()), p["ccsdt_iterations"].as<int>());
  EXPECT_EQ(static_cast<int>(j["extras"]["timings"]["ccsd_iterations"].size()), p["ccsd_iterations"].as<int>());
}

// A CCSD that does not converge before (T) or CCSDT computed no energy of the
// requested method: return_energy is null (docs/results.md), the CCSD energy
// is only a property, and CCSDT's cc_iterations (its own iterations) is empty.
TEST_F(ProgramTest, UnconvergedCcsdBeforeTheRequestedMethodHasNoReturnEnergy) {
  for (const std::string method : {"ccsd(t)", "ccsdt"}) {
    const auto input = water_input("nc", [&](YAML::Node& in) {
      in["cc"]["method"] = method;
      in["cc"]["max_iterations"] = 2;
    });
    const auto r = cyclocc({input.string()});
    EXPECT_EQ(r.exit_code, 3) << method;
    expect_one_error_line(r, {"CCSD did not converge in 2 iterations (cc.max_iterations: 2;"});
    const auto j = results("nc.json");
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "convergence_error") << method;
    EXPECT_TRUE(j["return_energy"].IsNull()) << method;
    EXPECT_TRUE(j["return_result"].IsNull()) << method;
    EXPECT_LT(j["properties"]["ccsd_total_energy"].as<double>(), j["properties"]["scf_total_energy"].as<double>());
    const auto timings = j["extras"]["timings"];
    EXPECT_EQ(timings["cc_iterations"].size(), method == "ccsdt" ? 0u : 2u) << method;
    // The stages that ran have their times, also the one that ended the run.
    EXPECT_GT(timings["motransform"].as<double>(), 0) << method;
    double iterations = 0;
    for (const auto& x : timings[method == "ccsdt" ? "ccsd_iterations" : "cc_iterations"]) iterations += x.as<double>();
    EXPECT_GE(timings["cc"].as<double>(), iterations) << method;
    EXPECT_FALSE(timings["triples"].IsDefined()) << method;
    if (method == "ccsdt") {
      EXPECT_EQ(timings["ccsd_iterations"].size(), 2u);
    }
  }
}

// CC iterations that diverge end at the first iteration whose energy or
// amplitudes are not finite numbers (RHF N2 at 4 A in STO-3G without DIIS
// runs away by tens of orders of magnitude an iteration): exit 3 at once,
// far below cc.max_iterations, with the results and the checkpoint at the
// iteration before and its energy in full in the message.
TEST_F(ProgramTest, DivergingCcsdStopsAtTheFirstIterationThatIsNotFinite) {
  const auto input = water_input("dv", [](YAML::Node& in) {
    in["molecule"]["units"] = "angstrom";
    in["molecule"]["geometry"] = "N 0 0 0\nN 0 0 4.0\n";
    in["basis"] = "sto-3g";
    in["cc"]["method"] = "ccsd";
    in["cc"]["diis"] = 0;
  });
  for (int ranks : {0, 2}) {
    fs::remove(path("dv.h5"));
    const auto r = cyclocc({input.string()}, ranks);
    EXPECT_EQ(r.exit_code, 3);
    const auto j = results("dv.json");
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "convergence_error");
    const int k = j["properties"]["ccsd_iterations"].as<int>();
    EXPECT_GE(k, 2);
    EXPECT_LT(k, 20);
    const double e = j["properties"]["ccsd_total_energy"].as<double>();
    ASSERT_TRUE(std::isfinite(e));
    EXPECT_EQ(j["return_energy"].as<double>(), e);
    char printed[32];
    std::snprintf(printed, sizeof printed, std::abs(e) < 1e9 ? "%.12f" : "%.12e", e);
    const std::string diverged = "CCSD diverged: iteration " + std::to_string(k + 1) + " gave amplitudes or an energy";
    const std::string held = "hold iteration " + std::to_string(k) + " (energy " + printed + ")";
    expect_one_error_line(r, {diverged, held});
    EXPECT_EQ(static_cast<int>(j["extras"]["timings"]["cc_iterations"].size()), k);
    // The log said so below iteration 4, whose |dT| had grown three times
    // running (RunawayWatch), and the results file lists it.
    const std::string warning = "warning: CCSD: |dT| has grown at each of the last 3 iterations, to ";
    const auto at = r.out.find(warning);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.rfind("\n    4 ", at), r.out.rfind("\n    ", at)) << r.out;
    EXPECT_NE(r.out.find(": the amplitudes are running away and may not converge (DIIS is off: cc.diis may help)\n",
                         at), std::string::npos) << r.out;
    ASSERT_EQ(j["extras"]["warnings"].size(), 1u);
    EXPECT_EQ(j["extras"]["warnings"][0].as<std::string>().rfind(warning.substr(9), 0), 0u);
    // Run-away amplitudes get no pair energies or diagnostics.
    EXPECT_FALSE(j["properties"]["ccsd_same_spin_correlation_energy"].IsDefined());
    EXPECT_FALSE(j["extras"]["ccsd_t1_diagnostic"].IsDefined());
    // The checkpoint holds iteration k: a restart goes on from it, diverges
    // again and leaves it as it was.
    const std::string before = read_text(path("dv.h5"));
    const auto again = cyclocc({input.string(), "--restart"}, ranks);
    EXPECT_EQ(again.exit_code, 3);
    EXPECT_NE(again.out.find("CCSD: continuing from iteration " + std::to_string(k) + " of checkpoint"),
              std::string::npos)
        << again.out;
    expect_one_error_line(again, {diverged, held});
    EXPECT_EQ(results("dv.json")["properties"]["ccsd_iterations"].as<int>(), k);
    EXPECT_EQ(read_text(path("dv.h5")), before);
  }
}

// A folder that does not exist is found before any work: exit 2 naming the
// key or flag, not exit 1 after the whole calculation.
TEST_F(ProgramTest, MissingOutputFolderIsAnInputErrorAtOnce) {
  const auto input = water_input("w", [](YAML::Node& in) { in["output"]["molden"] = "no/such/folder/w.molden"; });
  auto r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: output.molden: folder", "no/such/folder", "does not exist"});
  EXPECT_EQ(r.out.find("SCF converged"), std::string::npos) << r.out;
  EXPECT_EQ(results("w.json")["error"]["error_type"].as<std::string>(), "input_error");
  r = cyclocc({water_input("v").string(), "--json", "no/such/folder/v.json"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"v.yaml: --json: folder no/such/folder of no/such/folder/v.json does not exist"});
}

// No output file may be the input file or another output file: exit 2 naming
// both, and the input (or the checkpoint) is left as it was.
TEST_F(ProgramTest, OutputFilesThatCollideAreRefused) {
  const auto input = water_input("c");
  const std::string text = read_text(input);
  const struct {
    std::vector<std::string> args;
    std::vector<std::string> message;
  } cases[] = {
      {{"--checkpoint", input.string()}, {"c.yaml: --checkpoint:", "is the input file itself"}},
      {{"--json", input.string()}, {"c.yaml: --json:", "is the input file itself"}},
      // relative to the current folder, which is the input's
      {{"--json", "c.h5"}, {"c.yaml: --json: names the same file as checkpoint.file"}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{input.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = cyclocc(args);
    EXPECT_EQ(r.exit_code, 2) << c.args[1];
    expect_one_error_line(r, c.message);
    EXPECT_EQ(read_text(input), text) << c.args[1];
    EXPECT_FALSE(fs::exists(path("c.h5"))) << c.args[1];
  }
  // JSON is YAML: an input named x.json would be its own default results file.
  write_text(path("x.json"), text);
  const auto r = cyclocc({path("x.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"x.json: output.json:", "is the input file itself"});
  EXPECT_EQ(read_text(path("x.json")), text);
}

// An input that does not validate still reports into its results file, so an
// old one (say, of a successful run) does not stand as this run's outcome.
TEST_F(ProgramTest, InvalidInputReplacesAnOldResultsFile) {
  const auto input = water_input("old");
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  EXPECT_TRUE(results("old.json")["success"].as<bool>());
  write_text(input, read_text(input) + "scf:\n  convergence: -1\n");
  auto r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  auto j = results("old.json");
  EXPECT_FALSE(j["success"].as<bool>());
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "input_error");
  // Also where the input's own output.json puts it.
  write_text(input, "output:\n  json: elsewhere.json\nmolecule: {}\n");
  r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(results("elsewhere.json")["error"]["error_type"].as<std::string>(), "input_error");
}
