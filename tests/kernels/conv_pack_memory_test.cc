// How much memory a convolution's prepare holds while it folds a batch norm into mapped weights
// and packs them (WeightServices::weight_pages): a ResNet-18 layer4-sized conv (512 x 512 x 3 x 3,
// stride 2: oneDNN's direct algorithm, a blocked weight layout) with its weights in a read-only
// private file mapping, as the runtime's weight set maps them. The kernel folds and packs a
// piece of output channels at a time and lets each piece's mapped pages go, so the process
// grows by about one copy of the weights (the packed one), not three (mapped, folded, packed
// in full), and none of the mapping stays resident. Linux: /proc/self/status, smaps, clear_refs.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

/// A `/proc/self/status` field in bytes (VmRSS, VmHWM); 0 when absent.
size_t status_bytes(const std::string& field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field + ":", 0) == 0)
      return size_t(std::stoull(line.substr(field.size() + 1))) * 1024;
  return 0;
}

/// Resident bytes (smaps Rss) of this process's mapping that starts at `addr`.
size_t mapping_rss(const void* addr) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool in_it = false;
  while (std::getline(f, line)) {
    const size_t dash = line.find('-');
    if (dash != std::string::npos && dash < line.find(' ') && line.find(':') > line.find(' ')) {
      in_it = std::stoull(line.substr(0, dash), nullptr, 16) == reinterpret_cast<uintptr_t>(addr);
    } else if (in_it && line.rfind("Rss:", 0) == 0) {
      return size_t(std::stoull(line.substr(4))) * 1024;
    }
  }
  return 0;
}

/// The weight file's mapping, as DataSource::drop_pages treats it: pages wholly inside a
/// range leave the process (MADV_DONTNEED on a read-only private mapping loses nothing).
class MappedWeight final : public WeightPages {
 public:
  MappedWeight(const float* data, size_t size) : data_(data), size_(size) {}
  void drop(WeightKey key, size_t offset, size_t size) const override {
    if (key.slot != 0 || offset >= size_) return;
    size = std::min(size, size_ - offset);
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data_) + offset;
    const uintptr_t start = (begin + page - 1) / page * page, end = (begin + size) / page * page;
    if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
    ++calls;
  }
  mutable int calls = 0;

 private:
  const float* data_;
  size_t size_;
};

/// conv2d(x, w, bias, stride 2, padding 1) with a folded batch norm, x [1, ic, 14, 14], w
/// [oc, ic, 3, 3]: its tensors and a prepare + run by a registered kernel.
struct NormConv {
  NormConv(std::mt19937& rng, int64_t oc, int64_t ic)
      : w(Buffer::random(rng, {oc, ic, 3, 3}, -0.05f, 0.05f)),
        x(Buffer::random(rng, {1, ic, 14, 14})),
        bias(Buffer::random(rng, {oc})),
        gamma(Buffer::random(rng, {oc}, 0.5f, 1.5f)),
        beta(Buffer::random(rng, {oc})),
        mean(Buffer::random(rng, {oc})),
        var(Buffer::random(rng, {oc}, 0.5f, 2.f)) {}

  /// Output of `impl` with the weights' bytes at `weights` (mapped or not); `drop` as
  /// WeightServices::weight_pages; `grew`: how far prepare raised the process's peak RSS.
  std::vector<float> run(KernelImpl impl, const void* weights, const WeightPages* drop,
                         size_t* grew) const {
    static const int64_t two[] = {2, 2}, one[] = {1, 1};
    const std::vector<Arg> args = {{ArgKind::kTensor, 0},       {ArgKind::kTensor, 1},
                                   {ArgKind::kTensor, 2},       {ArgKind::kInts, 0, 0, two},
                                   {ArgKind::kInts, 0, 0, one}, {ArgKind::kInts, 0, 0, one},
                                   {ArgKind::kInt, 1}};
    const WeightKey keys[] = {{}, {0, 1}};  // input 1, the conv weight, is weight slot 0
    std::vector<Tensor> in = {x.tensor(),    w.tensor(),    bias.tensor(), gamma.tensor(),
                              beta.tensor(), mean.tensor(), var.tensor()};
    in[0].data = nullptr;  // an activation: no bytes at prepare
    in[1].data = const_cast<void*>(weights);
    std::vector<Tensor> out(1);
    KernelCall call{"aten::conv2d", "conv", args, in, out};
    call.batch_norm = {3, 4, 5, 6, 1e-5};
    WeightServices services{.input_keys = keys, .weight_pages = drop};
    call.weights = &services;
    const KernelEntry* e = KernelRegistry::global().find_exact("aten::conv2d", DeviceType::kCpu,
                                                               DType::kFloat32, impl);
    EXPECT_NE(e, nullptr);
    if (!e) return {};
    auto kernel = e->factory();
    PrepareInfo info;
    std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM = VmRSS from here
    const size_t rss = status_bytes("VmRSS");
    const Status st = kernel->prepare(call, &info);
    if (grew) *grew = status_bytes("VmHWM") - std::min(rss, status_bytes("VmHWM"));
    EXPECT_TRUE(st.ok()) << st.message();
    if (!st.ok()) return {};
    services.weight_pages = nullptr;
    in[0].data = x.tensor().data;
    std::vector<float> y(size_t(out[0].numel()));
    out[0].data = y.data();
    std::vector<uint64_t> scratch(info.scratch_bytes / 8 + 16);
    void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                            ~uintptr_t{63});
    const Status ran = kernel->run(call, aligned);
    EXPECT_TRUE(ran.ok()) << ran.message();
    return y;
  }

  Buffer w, x, bias, gamma, beta, mean, var;
};

TEST(ConvPackMemory, FoldAndPackHoldAboutOneCopyOfMappedWeights) {
  std::mt19937 rng(14);
  // oneDNN's and OpenMP's first-use setup, not counted below (and no large block freed that
  // the measured prepare could reuse).
  const NormConv small(rng, 16, 16);
  ASSERT_FALSE(small.run(KernelImpl::kOptimized, small.w.tensor().data, nullptr, nullptr).empty());

  const NormConv conv(rng, 512, 512);
  const size_t wbytes = conv.w.tensor().nbytes();  // 9.4 MB
  char path[] = "/tmp/tir_conv_pack_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, conv.w.tensor().data, wbytes), ssize_t(wbytes));
  void* map = mmap(nullptr, wbytes, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  ASSERT_NE(map, MAP_FAILED);
  const MappedWeight pages(static_cast<const float*>(map), wbytes);

  size_t grew = 0;
  const std::vector<float> got = conv.run(KernelImpl::kOptimized, map, &pages, &grew);
  ASSERT_FALSE(got.empty());
  EXPECT_GT(pages.calls, 1);  // piece by piece
  // The packed copy (wbytes) plus about one 1 MiB piece and oneDNN's own buffers (1.3-1.5x
  // measured, more threads more); mapped + folded + packed in full measured 3.0x.
  EXPECT_LT(grew, 2 * wbytes) << "prepare grew the process by " << grew << " bytes for " << wbytes
                              << " bytes of weights";
  EXPECT_EQ(mapping_rss(map), 0u);
  RecordProperty("prepare_grew_bytes", std::to_string(grew));

  // Same values as the reference kernel (conv, then the norm) on the same weights, and the
  // same bits as the oneDNN kernel on unmapped weights without page dropping.
  const void* plain_w = conv.w.tensor().data;
  const std::vector<float> want = conv.run(KernelImpl::kReference, plain_w, nullptr, nullptr);
  const std::vector<float> plain = conv.run(KernelImpl::kOptimized, plain_w, nullptr, nullptr);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.size(), plain.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
    ASSERT_EQ(got[i], plain[i]) << i;
  }
  munmap(map, wbytes);
}

}  // namespace
}  // namespace tir::kernels::testing
