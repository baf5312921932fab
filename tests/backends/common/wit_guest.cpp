// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "wit_guest.h"

#include <nlohmann/json.hpp>

#include <sstream>

#include "plugin_harness.h"

namespace wasinn_test {

std::vector<std::string> WitModelRun::names() const {
  std::vector<std::string> n;
  for (const WitOutput& o : outputs) n.push_back(o.name);
  return n;
}

WitModelRun run_wit_model(const std::string& name, std::vector<std::string> host_args,
                          std::vector<std::string> guest_args) {
  const std::string out = scratch_dir(name);
  host_args.insert(host_args.end(), {"--dir", out + "::/wit_out"});
  guest_args.insert(guest_args.end(), {"--output-dir", "/wit_out"});
  WitModelRun r;
  r.run = run_guest(host_args, "wit_run_model.component", guest_args);
  std::istringstream lines(r.run.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("output ", 0) != 0) continue;
    WitOutput o;
    std::istringstream fields(line.substr(7));
    size_t bytes = 0;
    if (!(fields >> o.name >> o.type >> o.dims >> bytes)) continue;
    std::string file = o.name;
    for (char& c : file)
      if (c == '/') c = '_';
    o.data = read_file(out + "/" + file + ".bin");
    if (o.data.size() != bytes) o.type += " (file of " + std::to_string(o.data.size()) + " bytes)";
    r.outputs.push_back(std::move(o));
  }
  return r;
}

std::string wit_input(const std::string& name, const std::string& type, const std::vector<uint32_t>& dims,
                      const std::string& guest_file) {
  std::string d;
  for (uint32_t v : dims) d += (d.empty() ? "" : "x") + std::to_string(v);
  return name + ":" + type + ":" + d + ":" + guest_file;
}

InspectedIo inspect_io(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"models", "inspect", "--backend-dir", WASINN_BACKEND_DIR, "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const GuestRun r = run_wasinn_split(all, "inspect");
  InspectedIo io;
  const auto j = nlohmann::json::parse(r.output, nullptr, false);
  if (r.exit_code != 0 || j.is_discarded() || !j.contains("inputs") || !j.contains("outputs")) {
    io.error = "models inspect failed (exit " + std::to_string(r.exit_code) + "): " + r.output + r.errors;
    return io;
  }
  for (const auto& t : j["inputs"]) {
    io.inputs.push_back(t.value("name", ""));
    io.input_framework_types.push_back(t.value("framework_type", ""));
  }
  for (const auto& t : j["outputs"]) io.outputs.push_back(t.value("name", ""));
  return io;
}

DigitsRuns run_digits_both_abis(const std::string& name, const std::string& preload,
                                const std::vector<std::string>& host_args, const std::vector<std::string>& wit_args) {
  const std::string out = scratch_dir(name);
  std::vector<std::string> host = {
      "--backend-dir", WASINN_BACKEND_DIR, "--dir",        fixtures_dir().string() + "/digits::/d",
      "--dir",         out + "::/out",     "--nn-preload", preload};
  host.insert(host.end(), host_args.begin(), host_args.end());
  auto run = [&](const std::string& guest, const std::vector<std::string>& pre, const char* logits) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), host.begin(), host.end());
    args.push_back(std::string(WASINN_GUEST_DIR) + "/" + guest + ".wasm");
    args.insert(args.end(), pre.begin(), pre.end());
    args.insert(args.end(), {"name:digits", "/d/test_x.f32", "/d/test_y.u8", std::string("/out/") + logits});
    return run_wasinn_split(args, name + "_" + guest);
  };
  DigitsRuns r;
  r.witx = run("classify_digits", {}, "witx.f32");
  r.wit = run("wit_classify_digits.component", wit_args, "wit.f32");
  r.witx_logits = read_file(out + "/witx.f32");
  r.wit_logits = read_file(out + "/wit.f32");
  return r;
}

void expect_digits_component_matches_witx(const std::string& name, const std::string& preload,
                                          const std::vector<std::string>& inspect_args,
                                          const std::vector<std::string>& host_args, InspectedIo* io_out) {
  const InspectedIo io = inspect_io(inspect_args);
  if (io_out) *io_out = io;
  ASSERT_EQ(io.error, "") << name;
  ASSERT_EQ(io.inputs.size(), 1u) << name;
  ASSERT_EQ(io.outputs.size(), 1u) << name;
  const DigitsRuns r =
      run_digits_both_abis(name, preload, host_args, {"--input", io.inputs[0], "--output", io.outputs[0]});
  ASSERT_EQ(r.witx.exit_code, 0) << name << ": " << r.witx.output << r.witx.errors;
  ASSERT_EQ(r.wit.exit_code, 0) << name << ": " << r.wit.output << r.wit.errors;
  EXPECT_EQ(r.wit.output, r.witx.output) << name;
  EXPECT_NE(r.wit.output.find("accuracy: "), std::string::npos) << name << ": " << r.wit.output;
  const std::string described = "output: " + io.outputs[0] + " dims [1, 10] type FP32";
  EXPECT_NE(r.wit.errors.find(described), std::string::npos) << name << ": " << r.wit.errors;
  ASSERT_EQ(r.wit_logits.size(), 450u * 10 * 4) << name;
  EXPECT_TRUE(r.wit_logits == r.witx_logits) << name << ": the component's logits differ from the witx guest's";
}

}  // namespace wasinn_test
