// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A WIT guest's tensors: a dropped tensor's buffer is kept for the next one (a serving guest
// makes one per request), and a tensor still held elsewhere is never written over.
#include <memory>
#include <vector>

#include "abi/wit_nn.h"
#include "support/abi_fixture.h"

namespace wasinn::unit {
namespace {

class WitTensorBytes : public ::testing::Test {
 protected:
  std::shared_ptr<const OwnedTensor> make(const std::vector<uint8_t>& bytes, uint32_t& rep) {
    const uint32_t dims[] = {static_cast<uint32_t>(bytes.size())};
    auto made = wit_.new_tensor(TensorView{TensorType::u8, dims, bytes});
    EXPECT_TRUE(made.ok());
    rep = *made;
    return *wit_.tensor(rep);
  }
  std::shared_ptr<NnEnvironment> env_ = make_env();
  wit_nn::WitSession wit_{std::make_shared<NnSession>(env_)};
};

TEST_F(WitTensorBytes, ADroppedTensorsBufferHoldsTheNext) {
  const std::vector<uint8_t> a(600 * 1024, 1), b(600 * 1024, 2);
  uint32_t rep = 0;
  const uint8_t* first = make(a, rep)->data.data();
  ASSERT_TRUE(wit_.drop_tensor(rep).ok());
  // Freed to the allocator, the buffer would be this one's now.
  const std::vector<uint8_t> meanwhile(a.size(), 3);
  auto second = make(b, rep);
  EXPECT_EQ(second->data.data(), first) << "the dropped tensor's buffer was not reused";
  EXPECT_EQ(second->data, b);
}

TEST_F(WitTensorBytes, ATensorStillHeldKeepsItsBytes) {
  const std::vector<uint8_t> a(4096, 1), b(4096, 2);
  uint32_t rep = 0;
  auto held = make(b, rep);  // as a pending set-input or a running compute holds it
  ASSERT_TRUE(wit_.drop_tensor(rep).ok());
  auto next = make(a, rep);
  EXPECT_NE(next->data.data(), held->data.data());
  EXPECT_EQ(held->data, b);
  EXPECT_EQ(next->data, a);
}

TEST_F(WitTensorBytes, ASmallTensorDoesNotTakeALargeBuffer) {
  const std::vector<uint8_t> large(600 * 1024, 1), small(16, 2);
  uint32_t rep = 0;
  const uint8_t* first = make(large, rep)->data.data();
  ASSERT_TRUE(wit_.drop_tensor(rep).ok());
  auto little = make(small, rep);
  EXPECT_NE(little->data.data(), first);
  EXPECT_LT(little->data.capacity(), large.size());
  auto next = make(large, rep);  // the large buffer is still spare
  EXPECT_EQ(next->data.data(), first);
}

TEST_F(WitTensorBytes, ATensorOutlivesItsSession) {
  uint32_t rep = 0;
  std::shared_ptr<const OwnedTensor> kept;
  {
    wit_nn::WitSession other(std::make_shared<NnSession>(env_));
    const uint32_t dims[] = {3};
    const std::vector<uint8_t> bytes{1, 2, 3};
    rep = *other.new_tensor(TensorView{TensorType::u8, dims, bytes});
    kept = *other.tensor(rep);
  }
  EXPECT_EQ(kept->data, (std::vector<uint8_t>{1, 2, 3}));
  kept.reset();  // its bytes go to the spare the session left behind, not to freed memory (ASan)
}

}  // namespace
}  // namespace wasinn::unit
