// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/dynamic_batcher.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wasinn::oip_server {

// One request in the queue. Its inputs are sorted by name, with dims of their own (the views the
// request handed over may be temporaries); names and bytes view the request.
struct DynamicBatcher::Item {
  std::vector<std::vector<uint32_t>> dims;
  std::vector<NamedInput> inputs;
  std::string key;  // names, datatypes and dimensions but the first: what may share a compute
  uint32_t rows = 0;
  uint64_t largest_input = 0;  // bytes, for max_input_bytes
  std::chrono::steady_clock::time_point arrived;
  enum class State { queued, computing, done } state = State::queued;
  std::optional<Result<BatchedOutputs>> result;
};

namespace {

thread_local WaitListener* t_wait_listener = nullptr;

uint64_t ns_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

std::string dims_text(std::span<const int64_t> dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

// Every request's rows of one output, or why the output cannot be split so.
Status split_output(const NamedTensor& out, uint32_t rows, const std::vector<uint32_t>& each,
                    std::vector<std::vector<NamedTensor>>& into) {
  const auto& t = out.tensor;
  if (t.dims.empty() || t.dims[0] != rows || t.data.size() % rows != 0) {
    const std::vector<int64_t> shape(t.dims.begin(), t.dims.end());
    return make_error(Errc::runtime_error,
                      fmt::format("dynamic batching: output '{}' has shape {} for a batch of {} rows, so it cannot be "
                                  "split back into the requests' rows",
                                  out.name, dims_text(shape), rows));
  }
  const size_t row_bytes = t.data.size() / rows;
  size_t offset = 0;
  for (size_t i = 0; i < each.size(); ++i) {
    NamedTensor part{out.name, OwnedTensor{t.type, t.dims, {}}};
    part.tensor.dims[0] = each[i];
    const size_t bytes = row_bytes * each[i];
    part.tensor.data.assign(t.data.begin() + static_cast<ptrdiff_t>(offset),
                            t.data.begin() + static_cast<ptrdiff_t>(offset + bytes));
    offset += bytes;
    into[i].push_back(std::move(part));
  }
  return {};
}

}  // namespace

Status check_batch_dimension(const Graph& graph, const BatchingOptions& options) {
  auto refuse = [&](const char* kind, const std::string& name, const std::optional<std::vector<int64_t>>& dims) {
    const std::string shape = dims ? dims_text(*dims) : "of unknown rank";
    return make_error(Errc::invalid_argument,
                      fmt::format("dynamic batching (max_batch_size {}) concatenates requests along dimension 0, so "
                                  "every input and output needs a dynamic (-1) dimension 0, a batch; {} '{}' has "
                                  "shape {}. Serve it without batching, or a variant of the model exported with a "
                                  "dynamic batch dimension",
                                  options.max_batch_size, kind, name, shape));
  };
  if (graph.inputs().empty() || graph.outputs().empty())
    return make_error(Errc::invalid_argument,
                      "dynamic batching needs the model's inputs and outputs described, each with a dynamic (-1) "
                      "dimension 0; its backend describes none");
  auto batched = [](const std::optional<std::vector<int64_t>>& dims) {
    return dims && !dims->empty() && (*dims)[0] < 0;
  };
  for (const IoInfo& in : graph.inputs())
    if (!batched(in.dims)) return refuse("input", in.name, in.dims);
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    if (!batched(graph.outputs()[i].dims)) return refuse("output", output_name(graph, i), graph.outputs()[i].dims);
  return {};
}

void set_thread_wait_listener(WaitListener* listener) { t_wait_listener = listener; }

DynamicBatcher::DynamicBatcher(BatchingOptions options, Compute compute, Executed executed)
    : options_(options), compute_(std::move(compute)), executed_(std::move(executed)) {}

DynamicBatcher::Ticket::Ticket(Ticket&& other) noexcept : batcher_(other.batcher_), item_(std::move(other.item_)) {}

DynamicBatcher::Ticket& DynamicBatcher::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    leave();
    batcher_ = other.batcher_;
    item_ = std::move(other.item_);
  }
  return *this;
}

DynamicBatcher::Ticket::~Ticket() { leave(); }

void DynamicBatcher::Ticket::leave() {
  if (item_) batcher_->leave(*item_);
  item_.reset();
}

DynamicBatcher::Ticket DynamicBatcher::join(std::span<const NamedInput> inputs) {
  if (inputs.empty() || !options_.enabled()) return {};
  auto item = std::make_shared<Item>();
  item->inputs.assign(inputs.begin(), inputs.end());
  std::sort(item->inputs.begin(), item->inputs.end(),
            [](const NamedInput& a, const NamedInput& b) { return a.name < b.name; });
  item->dims.resize(item->inputs.size());
  for (size_t i = 0; i < item->inputs.size(); ++i) {
    NamedInput& in = item->inputs[i];
    const auto dims = in.tensor.dims;
    if (dims.empty() || dims[0] == 0 || (i > 0 && dims[0] != item->rows)) return {};
    item->rows = dims[0];
    auto bytes = tensor_byte_size(dims, in.tensor.type);
    if (!bytes || *bytes != in.tensor.data.size()) return {};
    item->largest_input = std::max<uint64_t>(item->largest_input, *bytes);
    item->dims[i].assign(dims.begin(), dims.end());
    in.tensor.dims = item->dims[i];
    // Length-prefixed name: no name can pass for another's with a separator inside it.
    item->key += fmt::format("{}:{}|{}|{};", in.name.size(), in.name, type_name(in.tensor.type),
                             fmt::join(dims.subspan(1), ","));
  }
  if (item->rows > options_.max_batch_size) return {};
  if (options_.max_input_bytes && item->largest_input > options_.max_input_bytes) return {};
  item->arrived = Clock::now();
  {
    std::lock_guard lock(mu_);
    queue_.push_back(item);
  }
  cv_.notify_all();
  return Ticket(this, std::move(item));
}

size_t DynamicBatcher::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

Result<BatchedOutputs> DynamicBatcher::take(Ticket& ticket) {
  if (!ticket) return make_error(Errc::invalid_argument, "dynamic batching: no place in the queue");
  Item& mine = *ticket.item_;
  std::unique_lock lock(mu_);
  for (;;) {
    if (mine.state == Item::State::done) {
      Result<BatchedOutputs> out = std::move(*mine.result);
      lock.unlock();
      ticket.item_.reset();  // taken: nothing to leave
      return out;
    }
    // This worker gathers the next batch: the oldest request's, which may not hold this one's
    // rows (it then comes back for its own). It also does so while another worker computes its
    // rows: a worker that only waited would leave a batch's compute alone on the machine.
    if (!gathering_ && !queue_.empty()) {
      gathering_ = true;
      auto batch = gather(lock);
      gathering_ = false;
      lock.unlock();
      cv_.notify_all();  // another worker may gather the next batch while this one computes
      if (!batch.empty()) run(batch);
      lock.lock();
      continue;
    }
    // Its rows are in another worker's batch and there is nothing to gather: this worker only
    // waits, so it gives its place to another job until they are done (it gathers nothing then).
    if (mine.state == Item::State::computing && t_wait_listener) {
      WaitListener* listener = t_wait_listener;
      lock.unlock();
      listener->waiting();
      lock.lock();
      cv_.wait(lock, [&] { return mine.state == Item::State::done; });
      lock.unlock();
      listener->resumed();
      lock.lock();
      continue;
    }
    cv_.wait(lock);
  }
}

std::vector<std::shared_ptr<DynamicBatcher::Item>> DynamicBatcher::gather(std::unique_lock<std::mutex>& lock) {
  // Wait for a full batch of the oldest request's kind, or until it has waited max_queue_delay_us.
  for (;;) {
    if (queue_.empty()) return {};  // every request left while this worker waited
    const Item& oldest = *queue_.front();
    const auto deadline = oldest.arrived + std::chrono::microseconds(options_.max_queue_delay_us);
    uint64_t rows = 0;
    for (const auto& item : queue_)
      if (item->key == oldest.key) rows += item->rows;
    if (rows >= options_.max_batch_size || Clock::now() >= deadline) break;
    cv_.wait_until(lock, deadline);
  }
  std::vector<std::shared_ptr<Item>> batch;
  const std::string key = queue_.front()->key;
  uint64_t rows = 0, bytes = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Item& item = **it;
    const bool fits =
        batch.empty() || (item.key == key && rows + item.rows <= options_.max_batch_size &&
                          (!options_.max_input_bytes || bytes + item.largest_input <= options_.max_input_bytes));
    if (!fits) {
      ++it;
      continue;
    }
    rows += item.rows;
    bytes += item.largest_input;
    item.state = Item::State::computing;
    batch.push_back(std::move(*it));
    it = queue_.erase(it);
  }
  return batch;
}

void DynamicBatcher::run(const std::vector<std::shared_ptr<Item>>& batch) {
  BatchExecution ex;
  ex.requests = batch.size();
  std::vector<uint32_t> each;
  for (const auto& item : batch) {
    each.push_back(item->rows);
    ex.rows += item->rows;
  }
  std::vector<std::optional<Result<BatchedOutputs>>> results(batch.size());
  auto fail_all = [&](const Error& e) {
    for (auto& r : results) r.emplace(e);
  };
  try {
    const auto started = Clock::now();
    // One request alone computes on its own views; more are concatenated, input by input (their
    // inputs have the same names in the same order: the key says so).
    std::vector<NamedInput> inputs;
    std::vector<std::vector<uint32_t>> dims;
    std::vector<std::vector<uint8_t>> bytes;
    if (batch.size() == 1) {
      inputs = batch[0]->inputs;
    } else {
      const auto& first = batch[0]->inputs;
      dims.resize(first.size());
      bytes.resize(first.size());
      for (size_t i = 0; i < first.size(); ++i) {
        dims[i].assign(first[i].tensor.dims.begin(), first[i].tensor.dims.end());
        dims[i][0] = ex.rows;
        size_t total = 0;
        for (const auto& item : batch) total += item->inputs[i].tensor.data.size();
        bytes[i].reserve(total);
        for (const auto& item : batch) {
          const auto data = item->inputs[i].tensor.data;
          bytes[i].insert(bytes[i].end(), data.begin(), data.end());
        }
        inputs.push_back({first[i].name, TensorView{first[i].tensor.type, dims[i], bytes[i]}});
      }
    }
    const auto concatenated = Clock::now();
    auto outputs = compute_(inputs);
    const auto computed = Clock::now();
    ex.input_ns = ns_between(started, concatenated);
    ex.compute_ns = ns_between(concatenated, computed);
    if (!outputs) {
      fail_all(outputs.error());
    } else if (batch.size() == 1) {
      results[0].emplace(BatchedOutputs{std::move(*outputs), {}});
      ex.ok = true;
    } else {
      std::vector<std::vector<NamedTensor>> parts(batch.size());
      Status split;
      for (const auto& out : *outputs)
        if (split = split_output(out, ex.rows, each, parts); !split) break;
      if (!split) {
        fail_all(split.error());
      } else {
        for (size_t i = 0; i < batch.size(); ++i) results[i].emplace(BatchedOutputs{std::move(parts[i]), {}});
        ex.ok = true;
      }
    }
    ex.output_ns = ns_between(computed, Clock::now());
  } catch (const std::exception& e) {  // std::bad_alloc: every request of the batch gets it, none waits forever
    fail_all(make_error(Errc::runtime_error, fmt::format("dynamic batching: {}", e.what())));
    ex.ok = false;
  }
  for (auto& r : results)
    if (*r) (**r).execution = ex;
  if (executed_) executed_(ex);
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i]->result = std::move(results[i]);
      batch[i]->state = Item::State::done;
    }
  }
  cv_.notify_all();
}

void DynamicBatcher::leave(Item& item) {
  std::unique_lock lock(mu_);
  if (item.state == Item::State::queued) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (it->get() == &item) {
        queue_.erase(it);
        break;
      }
    item.state = Item::State::done;
    lock.unlock();
    cv_.notify_all();  // a gatherer waiting on this item's delay looks at the new oldest
    return;
  }
  // A batch holds its rows: the compute still reads the request's bytes.
  cv_.wait(lock, [&] { return item.state == Item::State::done; });
}

}  // namespace wasinn::oip_server
