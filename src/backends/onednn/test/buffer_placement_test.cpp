// The oneDNN runtime's buffer planner on hand-written usage records: weights
// back to back first, then intermediates by lifetime, each offset asserted.
#include <gtest/gtest.h>

#include <vector>

#include "backends/onednn/runtime/compiled_graph.h"

namespace kiln::backends::onednn {
namespace {

Buffer transient(size_t bytes, uint32_t first, uint32_t last) { return Buffer{bytes, first, last, false, 0}; }
Buffer persistent(size_t bytes) { return Buffer{bytes, 0, 0, true, 0}; }

size_t place(std::vector<Buffer>& buffers) {
  std::vector<Buffer*> order(buffers.size());
  return place_buffers(buffers.data(), static_cast<uint32_t>(buffers.size()), order.data());
}

TEST(BufferPlacementTest, WeightsFirstThenIntermediatesReuseFreedSpace) {
  std::vector<Buffer> buffers = {
      persistent(100),           // 0..128
      transient(1000, 0, 1),     // a: steps 0-1
      transient(500, 1, 2),      // b: overlaps a
      transient(900, 2, 3),      // c: a is dead by now, b is not
      persistent(64),            // 128..192
      transient(64, 3, 3),       // d: alive with c only
  };
  EXPECT_EQ(place(buffers), 192u + 1024u + 512u);
  EXPECT_EQ(buffers[0].offset, 0u);
  EXPECT_EQ(buffers[4].offset, 128u);
  EXPECT_EQ(buffers[1].offset, 192u);            // largest first, at the start
  EXPECT_EQ(buffers[2].offset, 192u + 1024u);    // after a, alive together
  EXPECT_EQ(buffers[3].offset, 192u);            // a's space, free at step 2
  EXPECT_EQ(buffers[5].offset, 192u + 960u);     // right after c (b is dead by then)
}

TEST(BufferPlacementTest, BuffersAliveTogetherNeverOverlap) {
  std::vector<Buffer> buffers;
  for (uint32_t i = 0; i < 40; ++i) buffers.push_back(transient(64 * (1 + (i * 7) % 5), i % 9, i % 9 + i % 4));
  const size_t arena = place(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(buffers[i].offset % 64, 0u);
    EXPECT_LE(buffers[i].offset + buffers[i].bytes, arena);
    for (size_t j = 0; j < i; ++j) {
      const Buffer &a = buffers[i], &b = buffers[j];
      const bool alive_together = !(a.last_step < b.first_step || b.last_step < a.first_step);
      const bool overlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      EXPECT_FALSE(alive_together && overlap) << i << " and " << j;
    }
  }
}

}  // namespace
}  // namespace kiln::backends::onednn
