// parse_json_strict: the one way tir reads a JSON document (a .pt2's model.json and configs,
// a safetensors header, adapter_config.json, tokenizer.json, tokenizer_config.json).
//
// nlohmann's parser, like Python's json, keeps the last of two values given for one key; the
// reader then sees one of two meanings the writer never reconciled. A key that appears twice in
// one object is refused instead. Header-only (nlohmann is a header library) so that folders that
// link nothing of core/ can use it; whoever includes it depends on nlohmann_json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace tir {
namespace json_strict_detail {

/// nlohmann's SAX interface building the document as its own DOM builder does, except that a
/// key already in its object stops the parse. The duplicate is found by the insertion itself,
/// so a document without one costs what nlohmann's parser costs. Holds pointers only along the
/// path of open containers: a container grows only after its last child is closed.
template <typename Json>
class StrictBuilder {
 public:
  explicit StrictBuilder(Json* root) : root_(root) {}

  bool null() { return add(nullptr) != nullptr; }
  bool boolean(bool v) { return add(v) != nullptr; }
  bool number_integer(typename Json::number_integer_t v) { return add(v) != nullptr; }
  bool number_unsigned(typename Json::number_unsigned_t v) { return add(v) != nullptr; }
  bool number_float(typename Json::number_float_t v, const typename Json::string_t&) {
    return add(v) != nullptr;
  }
  bool string(typename Json::string_t& v) { return add(v) != nullptr; }
  bool binary(typename Json::binary_t& v) { return add(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) { return open(add(Json::value_t::object)); }
  bool start_array(std::size_t) { return open(add(Json::value_t::array)); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(typename Json::string_t& k) {
    auto& object = open_.back()->template get_ref<typename Json::object_t&>();
    auto [it, inserted] = object.emplace(k, Json());
    if (!inserted) duplicate_ = k;
    slot_ = &it->second;
    return inserted;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  const std::string& duplicate() const { return duplicate_; }
  const std::string& error() const { return error_; }

 private:
  /// Places `v` as the root, the next element of the open array or the value of the last key.
  template <typename V>
  Json* add(V&& v) {
    if (open_.empty()) {
      *root_ = Json(std::forward<V>(v));
      return root_;
    }
    if (Json* parent = open_.back(); parent->is_array()) {
      auto& array = parent->template get_ref<typename Json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *slot_ = Json(std::forward<V>(v));
    return slot_;
  }
  bool open(Json* container) {
    open_.push_back(container);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  Json* root_;
  std::vector<Json*> open_;  // the open containers, outermost first
  Json* slot_ = nullptr;     // the value of the object key read last
  std::string duplicate_, error_;
};

}  // namespace json_strict_detail

/// Parses `text` as one JSON document. `what` names it in the errors (kCorrupt, one line):
///   "<what> is not valid JSON (<nlohmann's position and reason>)"
///   "<what>: key "<key>" appears twice in one object"   (the key JSON-quoted: one line)
/// `Json`: nlohmann::json, or nlohmann::ordered_json where the order of an object's keys has a
/// meaning.
template <typename Json = nlohmann::json>
Result<Json> parse_json_strict(std::string_view text, std::string_view what) {
  Json doc;
  json_strict_detail::StrictBuilder<Json> builder(&doc);
  if (Json::sax_parse(text, &builder)) return doc;
  if (!builder.duplicate().empty() || builder.error().empty())
    return make_error(StatusCode::kCorrupt, what, ": key ", Json(builder.duplicate()).dump(),
                      " appears twice in one object");
  return make_error(StatusCode::kCorrupt, what, " is not valid JSON (", builder.error(), ")");
}

}  // namespace tir
