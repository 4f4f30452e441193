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
  /// The signature position of the user input a user_input_mutation output spec names.
  Result<int32_t> mutated_input(const Json& spec);
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
  /// The symbol `.item()` node `name` binds: the one its output `out` names, or one of its own
  /// whose range is the constant torch specialised the value to.
  Result<int64_t> item_symbol(const Json& out, const std::string& name, bool is_bool);

  // ---- scalar_float.cc: `.item()` of a float, a 0-dim float64 tensor.
  /// The nodes of `f = x.item()` (`self` is x's argument, `out` f's output).
  Status add_float_item(const Json& self, const Json& out, const std::string& name);
  /// Whether `node` (op `op`) is Python arithmetic on such a float, and the node computing it.
  bool is_float_arith(const Json& node, const std::string& op) const;
  Status add_float_arith(const Json& node, const std::string& op, const std::string& name);
  /// Adds node `node` calling `op` (schema defaults filled) on `inputs` (the program JSON's
  /// form), whose one output is a new 0-dim tensor `out_name` of `out_dtype`.
  Status emit_internal_node(const std::string& op, const std::string& node, const Json& inputs,
                            const std::string& out_name, DType out_dtype);
  std::unordered_set<std::string> float_scalars_;  // the values made by emit_internal_node
  /// A program output that is a symbolic int (`return x.shape[1] + 1`): a node
  /// `aten::scalar_tensor(expr, dtype=int64)` computing it as a 0-dim int64 tensor; returns
  /// the value (scalar_binding.cc).
  Result<int32_t> add_sym_int_output(const std::string& name);
  /// The same for any scalar output: `value` an argument JSON (as_sym_int, or a constant
  /// as_int / as_float / as_bool that torch folded: `return x, 3`), as a 0-dim tensor of
  /// `dtype` (int64, float64 as Python's float holds, bool).
  Result<int32_t> add_scalar_output(const std::string& name, const Json& value, DType dtype);
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
  std::vector<flatbuffers::Offset<fb::InputMutation>> input_mutations_;
  std::vector<int32_t> input_mutation_inputs_;  // the inputs input_mutations_ write

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

  // ---- view_tracking.cc, view_write_back.cc: in-place writes through views (RWKV's
  // `state[:, :, i] = x`, Swin's attention mask), made functional as torch's own
  // functionalisation does (view_write_back.cc says how).
  /// A view op's output: the node that made it, so that it can be taken again from a newer
  /// version of what it views, and written back into it.
  struct ViewLink {
    std::string op;
    int32_t input = -1;           // the value it views
    std::vector<ArgOffset> args;  // the node's arguments, `self` first
    std::vector<int32_t> outs;    // the node's outputs (split and unbind have several)
    size_t out_index = 0;         // which of them this view is
    std::vector<int64_t> ints;    // permute's dims, split's sizes (write_back_node reads them)
  };
  /// Where the nodes the importer adds for a graph node come from (names and metadata).
  struct NodeSite {
    std::string node, module_path, module_type, source;
  };
  /// The value `node` passes as `self` (-1: none).
  int32_t self_value(const Json& node) const;
  /// Records a view node's output: what it views (its root) and how it was made.
  void record_view(const std::string& op, const std::vector<ArgOffset>& args, const Json& node,
                   const std::vector<int32_t>& outs);
  /// A node `op` on `args` emitted by the importer, its outputs typed like `like` (their
  /// tensor metadata); returns its output values.
  Result<std::vector<int32_t>> emit_added_node(const std::string& op, std::vector<ArgOffset> args,
                                               const std::vector<int32_t>& like,
                                               const NodeSite& site);
  /// `v` as it reads now: a root replaced by an in-place write reads its newest version, a
  /// view taken before such a write is taken again from it (emitting the view nodes).
  Result<int32_t> current_value(int32_t v, const NodeSite& site);
  /// Rebinds every tensor `node` reads to its current_value.
  Status refresh_inputs(const Json& node, const NodeSite& site);
  /// The in-place node `node` (op `*op`) on a view of a tensor, or on a tensor that has views:
  /// sets `*op` to the functional form and returns true (the caller then emits it and calls
  /// emit_write_back). False when the in-place node runs as it is; an error when the write
  /// cannot be made functional (an in-place kernel would write a copy that nothing reads).
  Result<bool> plan_write_back(const Json& node, const std::string& name, std::string* op) const;
  /// After the functional node computed `y` (the new value of its `self`, `view`): writes it
  /// back view by view into the root, which every later read then sees.
  Status emit_write_back(int32_t view, int32_t y, const NodeSite& site);
  /// The node writing `src` (the new value of view `link`) into `parent`; returns the new
  /// parent (`src` itself for views that are their input's bytes, alias or contiguous).
  Result<int32_t> write_back_node(const ViewLink& link, int32_t parent, int32_t src,
                                  const NodeSite& site);
  /// Whether an in-place write through view `link` can be written back into its input.
  bool can_write_back(const ViewLink& link) const;
  /// Whether value `v` was contiguous in torch (its strides in tensor_values; false when
  /// they are symbolic or unknown).
  bool torch_contiguous(int32_t v) const;
  /// Value v's static sizes and strides from torch's tensor meta; false if unknown.
  bool meta_layout(int32_t v, std::vector<int64_t>* sizes, std::vector<int64_t>* strides) const;
  /// Whether torch's reshape of `in` into `out` was a view (not a copy), from their metas.
  bool torch_reshape_views(int32_t in, int32_t out) const;
  std::unordered_map<int32_t, ViewLink> view_links_;
  std::unordered_map<int32_t, int32_t> view_root_;   // view -> the root value it was taken from
  std::unordered_map<int32_t, int32_t> superseded_;  // root -> its newer version
  std::unordered_map<int32_t, int32_t> retaken_;     // stale view -> the view taken again
  std::unordered_map<int32_t, int32_t> state_of_;    // copy_ into a parameter/buffer -> that value
  int added_nodes_ = 0;                              // for unique names of the nodes added
  std::vector<std::string> value_meta_names_;        // per value: its name in tensor_values
};

}  // namespace tir::importer
