// libFuzzer target: a .tir model: checksum, FlatBuffers and semantic verification, then
// what tools and shape binding do with every verified dim (evaluate and format). Each
// input is tried as it is and sealed with a correct checksum trailer, so mutations reach
// the verifiers instead of stopping at the checksum.
#include "ir/model.h"
#include "ir/sym_expr.h"

namespace {

void one(std::span<const uint8_t> bytes) {
  auto view = tir::ir::ModelView::open(bytes, "fuzz.tir");
  if (!view.ok()) return;
  for (const tir::fb::Method* m : *view->model().methods()) {
    std::vector<int64_t> symbols;
    if (m->symbols())
      for (const tir::fb::Symbol* s : *m->symbols())
        symbols.push_back(s->hint() >= 0 ? s->hint() : 2);
    if (!m->values()) continue;
    for (const tir::fb::Value* v : *m->values()) {
      if (!v->sizes()) continue;
      for (const tir::fb::Dim* d : *v->sizes()) {
        (void)tir::ir::eval_dim(*d, symbols);
        if (d->expr()) (void)tir::ir::format_sym_expr(*d->expr(), m->symbols());
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  one({data, size});
  const std::vector<uint8_t> sealed = tir::ir::model_seal({data, size});
  one(sealed);
  return 0;
}
