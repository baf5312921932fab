// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasi_ephemeral_nn load, load_by_name and load_by_name_with_config with bad pointers, counts,
// enum values and names. The graph out-pointer must stay unwritten on every failure.
#include "matrix_case.h"

namespace wasinn::bad_input {
namespace {

// load of the ORT digits model with one argument replaced; fails unless `ok`, then checks the
// out-pointer was left alone.
struct LoadArgs {
  uint32_t builders;
  uint32_t count;
  uint32_t encoding = 1;
  uint32_t target = 0;
  uint32_t out;
};

LoadArgs digits_load(CaseRun& r) { return {r.fixture_builders({"digits/model.onnx"}), 1, 1, 0, r.guest.out_u32()}; }

Status load_expect_untouched(CaseRun& r, LoadArgs a) {
  const Status st = nn::load(r.call(), a.builders, a.count, a.encoding, a.target, a.out);
  if (uint64_t{a.out} + 4 <= r.memory_size()) {
    EXPECT_TRUE(r.untouched(a.out));
  }
  return r.tracked_graph(st, a.out);
}

// load_by_name(name) into a fresh out-pointer, which must stay unwritten on failure.
Status by_name(CaseRun& r, const std::string& name) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::load_by_name(r.call(), r.guest.put(name), static_cast<uint32_t>(name.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

Status by_name_with_config(CaseRun& r, const std::string& name, const std::string& config) {
  const uint32_t out = r.guest.out_u32();
  const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(name), static_cast<uint32_t>(name.size()),
                                                 r.guest.put(config), static_cast<uint32_t>(config.size()), out);
  if (!st.ok()) {
    EXPECT_TRUE(r.untouched(out));
  }
  return r.tracked_graph(st, out);
}

const std::string kDigits = HostUnderTest::kDigitsOnnx;

const CaseList load_cases{
    {"ephemeral_load", "graph_out_out_of_range", E, kOrt, kInvalidArgument,
     "load: graph out-pointer 0xFFFFFFF0, past the memory",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.out = kWildPtr;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "graph_out_straddles_memory_end", E, kOrt, kInvalidArgument,
     "load: graph out-pointer at memory size - 2",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.out = r.memory_size() - 2;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_array_out_of_range", E, kNone, kInvalidArgument,
     "load: builder array pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.builders = kWildPtr;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_array_wraps_32_bits", E, kNone, kInvalidArgument,
     "load: builder array at 0xFFFFFFF8 with 2 entries (end wraps past 2^32)",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.builders = 0xFFFFFFF8;
       a.count = 2;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_data_out_of_range", E, kNone, kInvalidArgument,
     "load: builder {ptr 0xFFFFFFF0, len 100}",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.builders = r.guest.builder_array({{kWildPtr, 100}});
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_length_past_memory_end", E, kNone, kInvalidArgument,
     "load: builder of a real model with len 0xFFFFFF00",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.builders = r.guest.builder_array({{r.put(r.host.fixture("digits/model.onnx")), 0xFFFFFF00}});
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_count_zero", E, kNone, kInvalidArgument, "load: 0 graph builders",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.count = 0;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_count_huge", E, kNone, kInvalidArgument, "load: 0xFFFFFFFF graph builders",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.count = 0xFFFFFFFF;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "builder_count_over_limit", E, kNone, kInvalidArgument, "load: 65 in-bounds builders (limit 64)",
     [](CaseRun& r) {
       auto a = digits_load(r);
       const uint32_t model = r.put(r.host.fixture("digits/model.onnx"));
       a.builders = r.guest.builder_array(std::vector<std::pair<uint32_t, uint32_t>>(65, {model, 16}));
       a.count = 65;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "encoding_unknown_7", E, kNone, kInvalidEncoding, "load: graph_encoding 7",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.encoding = 7;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "encoding_u32_max", E, kNone, kInvalidEncoding, "load: graph_encoding 0xFFFFFFFF",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.encoding = 0xFFFFFFFF;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "target_unknown_4", E, kNone, kInvalidArgument, "load: execution_target 4",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.target = 4;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "target_u32_max", E, kNone, kInvalidArgument, "load: execution_target 0xFFFFFFFF",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.target = 0xFFFFFFFF;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "autodetect_garbage", E, kNone, kInvalidEncoding,
     "load: encoding 5 (autodetect) over 4 KiB of random bytes",
     [](CaseRun& r) {
       auto a = digits_load(r);
       a.builders = r.fixture_builders({"corrupt/garbage.onnx"});
       a.encoding = 5;
       return load_expect_untouched(r, a);
     }},
    {"ephemeral_load", "graph_out_inside_model_bytes", E, kOrt, kSuccess,
     "load: graph out-pointer overlaps the model bytes (written only after the load)",
     [](CaseRun& r) {
       const auto& model = r.host.fixture("digits/model.onnx");
       const uint32_t at = r.put(model);
       const uint32_t builders = r.guest.builder_array({{at, static_cast<uint32_t>(model.size())}});
       return r.tracked_graph(nn::load(r.call(), builders, 1, 1, 0, at + 100), at + 100);
     }},
    {"ephemeral_load", "graph_out_inside_builder_array", E, kOrt, kSuccess,
     "load: graph out-pointer is the builder array's own {ptr} field",
     [](CaseRun& r) {
       const uint32_t builders = r.fixture_builders({"digits/model.onnx"});
       return r.tracked_graph(nn::load(r.call(), builders, 1, 1, 0, builders), builders);
     }},
};

const CaseList by_name_cases{
    {"ephemeral_load_by_name", "name_out_of_range", E, kNone, kInvalidArgument, "load_by_name: name pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load_by_name(r.call(), kWildPtr, 6, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"ephemeral_load_by_name", "name_past_memory_end", E, kNone, kInvalidArgument,
     "load_by_name: 16-byte name starting 6 bytes before the end of memory",
     [](CaseRun& r) {
       r.guest.write_at(r.memory_size() - 6, "digits");
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load_by_name(r.call(), r.memory_size() - 6, 16, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"ephemeral_load_by_name", "name_with_trailing_nul", E, kNone, kInvalidArgument,
     "load_by_name: \"digits\\0\" (the NUL counted in name_len)",
     [](CaseRun& r) { return by_name(r, kDigits + std::string(1, '\0')); }},
    {"ephemeral_load_by_name", "name_with_inner_nul", E, kNone, kInvalidArgument, "load_by_name: \"dig\\0its\"",
     [](CaseRun& r) { return by_name(r, std::string("dig\0its", 7)); }},
    {"ephemeral_load_by_name", "name_invalid_utf8", E, kNone, kInvalidArgument,
     "load_by_name: \"digits\\xC3\\x28\" (bad continuation byte)",
     [](CaseRun& r) { return by_name(r, kDigits + "\xC3\x28"); }},
    {"ephemeral_load_by_name", "name_overlong_utf8", E, kNone, kInvalidArgument,
     "load_by_name: overlong \"\\xC0\\xAF\" before the name",
     [](CaseRun& r) { return by_name(r, "\xC0\xAF" + kDigits); }},
    {"ephemeral_load_by_name", "name_utf16_surrogate", E, kNone, kInvalidArgument,
     "load_by_name: CESU surrogate \"\\xED\\xA0\\x80\"", [](CaseRun& r) { return by_name(r, "\xED\xA0\x80"); }},
    {"ephemeral_load_by_name", "name_lone_continuation", E, kNone, kInvalidArgument, "load_by_name: \"\\x80\"",
     [](CaseRun& r) { return by_name(r, "\x80"); }},
    {"ephemeral_load_by_name", "name_empty", E, kNone, kInvalidArgument, "load_by_name: name_len 0",
     [](CaseRun& r) { return by_name(r, ""); }},
    {"ephemeral_load_by_name", "name_unknown", E, kNone, kNotFound, "load_by_name: \"no_such_model\"",
     [](CaseRun& r) { return by_name(r, "no_such_model"); }},
    {"ephemeral_load_by_name", "graph_out_out_of_range", E, kNone, kInvalidArgument,
     "load_by_name: registered name, graph out-pointer 0xFFFFFFF0",
     [](CaseRun& r) { return nn::load_by_name(r.call(), r.guest.put(kDigits), 6, kWildPtr); }},
    {"ephemeral_load_by_name", "graph_out_overlaps_name", E, kOrt, kSuccess,
     "load_by_name: graph out-pointer is the name's own bytes (read before written)",
     [](CaseRun& r) {
       const uint32_t name = r.guest.put(kDigits);
       return r.tracked_graph(nn::load_by_name(r.call(), name, 6, name), name);
     }},
};

const CaseList with_config_cases{
    {"ephemeral_load_by_name_with_config", "name_with_nul", E, kNone, kInvalidArgument,
     "load_by_name_with_config: \"dig\\0its\"",
     [](CaseRun& r) { return by_name_with_config(r, std::string("dig\0its", 7), "{}"); }},
    {"ephemeral_load_by_name_with_config", "name_invalid_utf8", E, kNone, kInvalidArgument,
     "load_by_name_with_config: \"\\xFF\\xFEdigits\"",
     [](CaseRun& r) { return by_name_with_config(r, "\xFF\xFE" + kDigits, "{}"); }},
    {"ephemeral_load_by_name_with_config", "name_unknown", E, kNone, kModelNotFound,
     "load_by_name_with_config: \"no_such_model\" (WasmEdge ggml guests expect 103)",
     [](CaseRun& r) { return by_name_with_config(r, "no_such_model", "{}"); }},
    {"ephemeral_load_by_name_with_config", "config_out_of_range", E, kNone, kInvalidArgument,
     "load_by_name_with_config: config pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st = nn::load_by_name_with_config(r.call(), r.guest.put(kDigits), 6, kWildPtr, 10, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"ephemeral_load_by_name_with_config", "config_len_u32_max", E, kNone, kTooLarge,
     "load_by_name_with_config: config_len 0xFFFFFFFF (limit 16 MiB)",
     [](CaseRun& r) {
       const uint32_t out = r.guest.out_u32();
       const Status st =
           nn::load_by_name_with_config(r.call(), r.guest.put(kDigits), 6, r.guest.put("{}"), 0xFFFFFFFF, out);
       EXPECT_TRUE(r.untouched(out));
       return r.tracked_graph(st, out);
     }},
    {"ephemeral_load_by_name_with_config", "config_not_json", E, kOrt, kInvalidArgument,
     "load_by_name_with_config: ORT model with config \"{not json\"",
     [](CaseRun& r) { return by_name_with_config(r, kDigits, "{not json"); }},
    {"ephemeral_load_by_name_with_config", "config_with_nul", E, kOrt, kInvalidArgument,
     "load_by_name_with_config: ORT model with config \"{\\0}\"",
     [](CaseRun& r) { return by_name_with_config(r, kDigits, std::string("{\0}", 3)); }},
    // Found by fuzz_witx_real: ORT started every thread asked for (tests/fuzz/regressions).
    {"ephemeral_load_by_name_with_config", "config_thread_bomb", E, kOrt, kInvalidArgument,
     "load_by_name_with_config: ORT model with config {\"intra_op_threads\": 20000}",
     [](CaseRun& r) { return by_name_with_config(r, kDigits, R"({"intra_op_threads": 20000})"); }},
    {"ephemeral_load_by_name_with_config", "graph_out_out_of_range", E, kNone, kInvalidArgument,
     "load_by_name_with_config: graph out-pointer 0xFFFFFFF0",
     [](CaseRun& r) {
       return nn::load_by_name_with_config(r.call(), r.guest.put(kDigits), 6, r.guest.put("{}"), 2, kWildPtr);
     }},
};

}  // namespace
}  // namespace wasinn::bad_input
