// Internal to the importer: the state of one graph build, shared by graph_builder.cc
// (values, signature, nodes), arg_convert.cc (node arguments) and tensor_plan.cc (weights
// and constants from the payload configs).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "importer/aten_schema.h"
#include "importer/graph_builder.h"
#include "importer/sym_parse.h"

namespace tir::importer {

using ArgOffset = flatbuffers::Offset<fb::Argument>;

struct SymbolRec {
  std::string name;
  int64_t min = 0, max = INT64_MAX, hint = -1;
};

class GraphBuilder {
 public:
  GraphBuilder(const Program& p, const Pt2Archive& archive, int archive_index, ModelTables& t)
      : p_(p),
        archive_(archive),
        archive_index_(archive_index),
        fbb_(t.fbb.get()),
        tables_(t),
        weights_(t.weights),
        weight_group_(t.weight_group),
        constants_(t.constants),
        constant_index_(t.constant_index) {}
  Result<GraphPlan> build(const std::string& method_name);

  // ---- graph_builder.cc
  template <typename... P>
  Status corrupt(const P&... parts) const {
    return make_error(StatusCode::kCorrupt, "'", p_.file, "': ", parts...);
  }
  template <typename... P>
  Status unsupported(const P&... parts) const {
    return make_error(StatusCode::kUnsupported, "'", p_.file, "': ", parts...);
  }
  Status read_symbols();
  Status read_inputs();
  Status read_input(const Json& spec);
  /// A weight's or constant's table entry must agree with the placeholder's tensor_values
  /// entry (dtype and static sizes), or a doctored config would feed wrong bytes.
  Status check_placeholder(const std::string& name, const std::string& fqn, DType dtype,
                           const std::vector<int64_t>& shape);
  Status read_nodes();
  Status read_outputs();
  Status add_node(const Json& node, size_t ordinal);
  /// Splices the subgraph of a wrap_with_set_grad_enabled / wrap_with_autocast node into
  /// the current graph (hop_inline.cc).
  Status inline_hop(const Json& node, const std::string& name, const std::string& op);
  /// The arguments of a torch.cond node: (pred, true_fn, false_fn, operands), its two
  /// branches built as subgraphs of the current method (hop_cond.cc).
  Status cond_args(const Json& node, const std::string& name, std::vector<ArgOffset>* out);
  /// The arguments of a while_loop, scan or map_impl node (hop_loops.cc): its subgraphs
  /// built like cond's branches, its operand lists as TensorsArgs (ir/model.h kWhileLoopOp).
  Status loop_args(const Json& node, const std::string& name, const std::string& op,
                   std::vector<ArgOffset>* out);

  /// One operand of a HOP node as the parent graph knows it (hop_subgraph.cc).
  struct Operand {
    int32_t value = -1;  // -1: a symbolic int, not passed
    fb::ValueSource source = fb::ValueSource::Activation;
    int32_t index = -1;  // weight or constant index
    bool force = false;  // passed even when a weight or constant (loop state, sliced xs)
    /// Passed to the subgraph as an input; weights and constants bind by name inside it.
    bool passed() const {
      return value >= 0 &&
             (force || (source != fb::ValueSource::Weight && source != fb::ValueSource::Constant));
    }
  };
  /// The operands of a HOP node's `as_tensors` argument `arg`; `force` marks them passed.
  Status hop_operands(const Json& arg, const std::string& where, bool force,
                      std::vector<Operand>* out);
  /// Builds the `as_graph` argument `arg` of HOP node `name` as a subgraph of the current
  /// method taking `operands` (those passed are its inputs); returns its subgraphs_ index.
  Result<int32_t> hop_subgraph(const Json& arg, const std::string& name, const std::string& where,
                               const std::vector<Operand>& operands);
  /// A GraphArg argument naming subgraph `index`, and a TensorsArg of the passed operands.
  ArgOffset graph_arg(const char* name, int32_t index);
  ArgOffset operands_arg(const char* name, const std::vector<Operand>& operands);
  /// `x.item()`: a node that binds its unbacked symbol at run time (scalar_binding.cc).
  Status add_scalar_binding(const Json& node, const std::string& name);
  /// A program output that is a symbolic int (`return x.shape[1] + 1`): a node
  /// `aten::scalar_tensor(expr, dtype=int64)` computing it as a 0-dim int64 tensor; returns
  /// the value (scalar_binding.cc).
  Result<int32_t> add_sym_int_output(const std::string& name);
  Status add_node_outputs(const Json& node, const std::string& node_name,
                          std::vector<int32_t>* out);
  /// A node's arguments in schema order, omitted ones from the schema's defaults.
  Status schema_args(const Json& inputs, const std::string& op, const std::string& name,
                     const AtenSchema& schema, std::vector<ArgOffset>* out);
  /// No schema (HOPs, _operator.*, custom ops): the arguments as given.
  Status raw_args(const Json& inputs, const std::string& name, std::vector<ArgOffset>* out);
  /// Adds a value; tensor metadata from tensor_values[name] when kind is Tensor.
  /// `expr`: a SymInt user input's expression (Value.expr).
  /// `meta_name`: read the tensor metadata under this name instead (values the importer adds).
  Result<int32_t> add_value(const std::string& name, fb::ValueKind kind, fb::ValueSource source,
                            int32_t index, DType scalar_dtype = DType::kInt64,
                            flatbuffers::Offset<fb::SymExpr> expr = 0,
                            const std::string& meta_name = "", bool scalar_tensor = false);
  Result<flatbuffers::Offset<fb::SymExpr>> sym_expr(const std::string& text,
                                                    std::vector<SymTerm>* out_terms = nullptr);
  int64_t symbol_index(std::string_view name);

  // ---- arg_convert.cc
  /// A node argument given in the JSON (`arg` is the Argument union).
  Result<ArgOffset> convert_arg(const std::string& name, const Json& arg, const AtenArg* schema,
                                const std::string& node);
  /// A schema default.
  Result<ArgOffset> default_arg(const AtenArg& schema, const std::string& node);
  Result<int32_t> tensor_ref(const Json& tensor_arg, const std::string& where);
  /// The expression of a named SymInt/SymBool (sym_int_values / sym_bool_values).
  Result<flatbuffers::Offset<fb::SymExpr>> named_sym(const std::string& name,
                                                     const std::string& where);
  Result<ArgOffset> literal_arg(const std::string& name, const Json& constant_value,
                                const std::string& where);

  // ---- tensor_plan.cc
  /// The weight-file entry of a parameter / persistent buffer (shared by tied names).
  Result<int32_t> weight_for(const std::string& fqn, bool is_buffer);
  /// The Model.constants entry of a tensor constant / non-persistent buffer.
  Result<int32_t> constant_for(const std::string& fqn);

  const Program& p_;
  const Pt2Archive& archive_;
  const int archive_index_;
  flatbuffers::FlatBufferBuilder* fbb_;
  ModelTables& tables_;
  const Json* graph_ = nullptr;
  const Json* tensor_values_ = nullptr;
  const Json* sym_int_values_ = nullptr;
  const Json* sym_bool_values_ = nullptr;

  std::vector<flatbuffers::Offset<fb::Value>> values_;
  std::unordered_map<std::string, int32_t> value_index_;
  // While a HOP subgraph is inlined: its value names -> value indices (the subgraph is a
  // closed scope), and the prefix ("<hop node>.") that keeps its names unique.
  std::unordered_map<std::string, int32_t>* scope_ = nullptr;
  std::string scope_prefix_;
  std::unordered_map<std::string, const Json*> literals_;  // constant user inputs
  std::vector<SymbolRec> symbols_;
  std::unordered_map<std::string, int64_t> symbol_index_;
  std::vector<flatbuffers::Offset<fb::Node>> nodes_;
  std::vector<int32_t> inputs_, outputs_;
  /// Per value of the method being built: where its data comes from (cond operands that are
  /// weights or constants bind by name inside the branch instead of being passed).
  struct ValueRef {
    fb::ValueSource source;
    int32_t index;
  };
  std::vector<ValueRef> value_refs_;
  std::vector<flatbuffers::Offset<fb::Method>> subgraphs_;  // cond branches of this method
  std::vector<flatbuffers::Offset<fb::BufferMutation>> mutations_;

  std::vector<WeightPlan>& weights_;                        // tables_.weights
  std::unordered_map<std::string, int32_t>& weight_group_;  // group key -> weights_ index
  std::vector<ConstantPlan>& constants_;
  std::unordered_map<std::string, int32_t>& constant_index_;
  std::vector<NodeOp> node_ops_;
  /// Values that share memory with another in torch (views and what they view): in-place
  /// nodes on them are not functionalised (functionalize.h).
  std::unordered_set<int32_t> aliased_values_;
  /// The in-place node `node` (its op `op`) becomes its functional form when that is exact;
  /// `*out_rebind` then names the value whose later uses must read the node's output.
  void functionalize(const Json& node, std::string* op, std::string* out_rebind) const;
  size_t skipped_symbolic_nodes_ = 0;

  // ---- storage_offsets.cc: sym_storage_offset's unbacked symbols.
  /// The expression text of a named SymInt/SymBool argument or output; "" otherwise.
  std::string sym_text(const Json& arg) const;
  /// Records the unbacked symbol an `aten::sym_storage_offset` node names.
  void note_storage_offsets(const Json& node);
  /// Whether `node` (an `_assert_scalar`) asserts over a storage offset: it is dropped.
  bool asserts_storage_offset(const Json& node) const;
  /// Error naming `where` when `expr` mentions a storage offset.
  Status check_no_storage_offset(const std::string& expr, const std::string& where) const;
  /// Whether a tensor's shape in the graph mentions `symbol`.
  bool in_shapes(const std::string& symbol) const;
  std::unordered_set<std::string> storage_offsets_;
  std::unordered_set<std::string> scalar_symbols_;  // what `.item()` nodes bind

  // ---- view_write_back.cc: in-place ops through views (x[a:b, c] = v, Swin's attention mask).
  /// A view node's output: the value it views, the node's op and arguments, and how a write
  /// through the view reaches that value (kNone: it cannot, e.g. permute, expand, split).
  struct ViewLink {
    enum class Kind { kNone, kSlice, kSelect, kSameOrder, kSelfInverse };
    Kind kind = Kind::kNone;
    int32_t input = -1;
    std::vector<ArgOffset> args;
    std::string op;
  };
  static ViewLink::Kind view_link_kind(std::string_view op);
  /// The chain of linked views from an in-place node's self up to the tensor they view,
  /// innermost first, and that tensor; store_into_root: it is a buffer or parameter.
  struct WriteBack {
    std::vector<int32_t> chain;
    int32_t root = -1;
    bool store_into_root = false;
  };
  /// The value `node` passes as `self` (-1: none).
  int32_t self_value(const Json& node) const;
  /// Records a view node's outputs (view_root_, view_links_).
  void record_view(const std::string& op, const std::vector<ArgOffset>& args, const Json& node,
                   const std::vector<int32_t>& outs);
  /// The in-place node `node` (op `*op`) on a chain of linked views, or on an activation
  /// without a kernel for the in-place form: `*op` becomes the functional form and `*out` says
  /// where to write the result back (emit_write_back). False when the node stays as it is; an
  /// error when it writes through a view that cannot be written back.
  Result<bool> plan_write_back(const Json& node, const std::string& name, std::string* op,
                               WriteBack* out) const;
  /// After the functional node computed `y` (the new value of the innermost view): one
  /// scatter / reshape_as / transpose per link up to the root (then copy_ into a buffer root),
  /// whose later uses read the result; every earlier view of the root becomes stale
  /// (check_not_stale).
  Status emit_write_back(const WriteBack& wb, int32_t y, const std::string& node,
                         const std::string& module_path, const std::string& module_type,
                         const std::string& source);
  /// Error when `node` reads a view taken before an in-place write to what it views.
  Status check_not_stale(const Json& node, const std::string& name) const;
  std::unordered_map<int32_t, ViewLink> view_links_;
  std::unordered_map<int32_t, int32_t> view_root_;  // view output -> the value it views
  std::unordered_set<int32_t> stale_values_;
  std::vector<std::string> value_meta_names_;  // per value: its name in tensor_values
};

}  // namespace tir::importer
