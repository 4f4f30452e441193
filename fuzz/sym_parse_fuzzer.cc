// libFuzzer target: the importer's symbolic-expression parser (sympy text such as
// "FloorDiv(s0 + 1, 2)"), then what the runtime does with a parsed expression: verify,
// evaluate and format it.
#include <map>

#include "importer/sym_parse.h"
#include "ir/sym_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::map<std::string, int64_t, std::less<>> symbols;
  auto parsed = tir::importer::parse_sym_expr(
      std::string_view(reinterpret_cast<const char*>(data), size), [&](std::string_view n) {
        return symbols.emplace(std::string(n), int64_t(symbols.size())).first->second;
      });
  if (!parsed.ok()) return 0;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<tir::fb::ExprTerm> terms;
  for (const auto& t : *parsed) terms.emplace_back(t.op, t.value);
  fbb.Finish(tir::fb::CreateSymExprDirect(fbb, &terms, "fuzz"));
  const auto* e = flatbuffers::GetRoot<tir::fb::SymExpr>(fbb.GetBufferPointer());
  if (!tir::ir::check_sym_expr(*e, symbols.size()).ok()) return 0;
  std::vector<int64_t> values(symbols.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = int64_t(i) * 7 - 3;
  (void)tir::ir::eval_sym_expr(*e, values);
  (void)tir::ir::format_sym_expr(*e, nullptr);
  return 0;
}
