#include "tf_backend.h"

#include <nlohmann/json.hpp>

namespace wasinn_tf {
namespace {

void put_varint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// ConfigProto fields 2 (intra_op_parallelism_threads) and 5 (inter_op_parallelism_threads),
// per tensorflow/core/protobuf/config.proto.
std::string thread_config(uint32_t intra, uint32_t inter) {
  std::string out;
  if (intra) {
    out.push_back(static_cast<char>(2 << 3));
    put_varint(out, intra);
  }
  if (inter) {
    out.push_back(static_cast<char>(5 << 3));
    put_varint(out, inter);
  }
  return out;
}

}  // namespace

Error create_backend(const char *config, size_t config_length,
                     std::unique_ptr<wasinn_backend> &out) {
  uint32_t intra = 0, inter = 0;
  if (config && config_length) {
    const auto j = nlohmann::json::parse(config, config + config_length, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return invalid("tensorflow backend config is not a JSON object");
    for (const auto &[key, value] : j.items()) {
      if (key != "intra_op_threads" && key != "inter_op_threads")
        return invalid("unknown tensorflow backend setting \"" + key +
                       "\" (known: intra_op_threads, inter_op_threads)");
      if (!value.is_number_unsigned() || value.get<uint64_t>() > 1024)
        return invalid("tensorflow backend setting \"" + key + "\" must be a thread count 0-1024");
      (key == "intra_op_threads" ? intra : inter) = value.get<uint32_t>();
    }
  }
  auto b = std::make_unique<wasinn_backend>();
  b->session_config = thread_config(intra, inter);
  out = std::move(b);
  return {};
}

}  // namespace wasinn_tf
