// Storage offsets: torch.export records `aten::sym_storage_offset(view)` for views whose
// offset into their base is data-dependent (a slice from `.item()` bounds) and asserts the
// unbacked symbol it names (u4) is >= 0. tir's values are whole tensors with no storage to
// be offset into, so such a symbol has no value to bind: the assertions over it (true of
// every view torch makes) are dropped, and any other use of it (as_strided's storage_offset,
// a shape) is refused at import, naming the node.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "importer/graph_builder_impl.h"

namespace tir::importer {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Whether expression `text` mentions one of `symbols` as a whole identifier.
bool mentions(std::string_view text, const std::unordered_set<std::string>& symbols) {
  for (size_t i = 0; i < text.size();) {
    if (!ident_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    if (symbols.count(std::string(text.substr(i, j - i)))) return true;
    i = j;
  }
  return false;
}

}  // namespace

bool GraphBuilder::in_shapes(const std::string& symbol) const {
  const std::unordered_set<std::string> one{symbol};
  for (const auto& [name, meta] : tensor_values_->items()) {
    const Json* sizes = json_get(meta, "sizes");
    if (!sizes || !sizes->is_array()) continue;
    for (const Json& d : *sizes) {
      const Json* e = json_get(d, "as_expr");
      const Json* text = e ? json_get(*e, "expr_str") : nullptr;
      if (text && text->is_string() && mentions(text->get<std::string>(), one)) return true;
    }
  }
  return false;
}

std::string GraphBuilder::sym_text(const Json& arg) const {
  for (const char* kind : {"as_sym_int", "as_sym_bool"}) {
    const Json* s = json_get(arg, kind);
    const Json* n = s ? json_get(*s, "as_name") : nullptr;
    if (!n || !n->is_string()) continue;
    const Json* v = json_get(*sym_int_values_, n->get<std::string>());
    if (!v) v = json_get(*sym_bool_values_, n->get<std::string>());
    const Json* e = v ? json_get(*v, "as_expr") : nullptr;
    const Json* text = e ? json_get(*e, "expr_str") : nullptr;
    if (text && text->is_string()) return text->get<std::string>();
  }
  return "";
}

void GraphBuilder::note_storage_offsets(const Json& node) {
  const Json* outs = json_get(node, "outputs");
  if (!outs || !outs->is_array()) return;
  for (const Json& o : *outs) {
    // Only an offset that is one fresh unbacked symbol ("u4", or sympy's
    // "Symbol('u4', integer=True)"): an expression of symbols the program binds is evaluated
    // like any other.
    std::string text = sym_text(o);
    if (text.starts_with("Symbol('")) {
      const size_t end = text.find('\'', 8);
      if (end == std::string::npos || text.find('(', 8) != std::string::npos) continue;
      text = text.substr(8, end - 8);
    }
    if (text.size() < 2 || text[0] != 'u' ||
        !std::all_of(text.begin() + 1, text.end(), [](char c) { return std::isdigit(c); }) ||
        scalar_symbols_.count(text) || in_shapes(text))
      continue;
    storage_offsets_.insert(text);
  }
}

bool GraphBuilder::asserts_storage_offset(const Json& node) const {
  const Json* inputs = json_get(node, "inputs");
  if (storage_offsets_.empty() || !inputs || !inputs->is_array() || inputs->empty()) return false;
  const Json* a = json_get((*inputs)[0], "arg");
  return a && mentions(sym_text(*a), storage_offsets_);
}

Status GraphBuilder::check_no_storage_offset(const std::string& expr,
                                             const std::string& where) const {
  if (storage_offsets_.empty() || !mentions(expr, storage_offsets_)) return ok_status();
  return unsupported(where, " uses the storage offset of a view ('", expr,
                     "'); tir's tensors have no storage to be offset into");
}

}  // namespace tir::importer
