#include "importer/torch_pickle.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/tensor.h"

namespace tir::importer {
namespace {

// The globals a state-dict pickle may name. Nothing else resolves.
enum class Global {
  kOrderedDict,
  kRebuildTensorV2,
  kRebuildParameter,
  kRebuildParameterState,
  kStorageType
};

struct StorageTypeName {
  std::string_view name;
  DType dtype;
};
constexpr StorageTypeName kStorageTypes[] = {
    {"FloatStorage", DType::kFloat32},
    {"DoubleStorage", DType::kFloat64},
    {"HalfStorage", DType::kFloat16},
    {"BFloat16Storage", DType::kBFloat16},
    {"LongStorage", DType::kInt64},
    {"IntStorage", DType::kInt32},
    {"ShortStorage", DType::kInt16},
    {"CharStorage", DType::kInt8},
    {"ByteStorage", DType::kUInt8},
    {"BoolStorage", DType::kBool},
    {"ComplexFloatStorage", DType::kComplexFloat},
    {"ComplexDoubleStorage", DType::kComplexDouble},
};

enum class Kind {
  kNone,
  kBool,
  kInt,
  kFloat,
  kStr,
  kTuple,
  kList,
  kDict,
  kGlobal,
  kStorage,
  kTensor
};

struct Obj;
using ObjPtr = std::shared_ptr<Obj>;

// A data-only Python value. Containers share elements through the memo, as in Python.
struct Obj {
  Kind kind = Kind::kNone;
  int64_t i = 0;  // kBool, kInt, kStorage numel, kGlobal id
  double f = 0;
  std::string s;                    // kStr, kStorage key
  DType dtype = DType::kUndefined;  // kGlobal storage type, kStorage, kTensor
  std::vector<ObjPtr> items;        // kTuple, kList
  std::vector<std::pair<ObjPtr, ObjPtr>> dict;
  PickledTensor tensor;  // kTensor
};

// Every object the current unpickling made: a hostile pickle can put a container inside
// itself through the memo (a shared_ptr cycle), so unpickle_tensor_dict empties them all
// when it is done (found by pickle_fuzzer as a leak).
thread_local std::vector<std::weak_ptr<Obj>>* g_made = nullptr;

ObjPtr make(Kind k) {
  auto o = std::make_shared<Obj>();
  o->kind = k;
  if (g_made) g_made->push_back(o);
  return o;
}

/// Collects what make() creates while alive; on destruction empties every container still
/// alive, which breaks any reference cycle among them.
class MadeObjects {
 public:
  MadeObjects() { g_made = &made_; }
  ~MadeObjects() {
    g_made = nullptr;
    for (const std::weak_ptr<Obj>& w : made_)
      if (ObjPtr o = w.lock()) {
        o->items.clear();
        o->dict.clear();
      }
  }
  MadeObjects(const MadeObjects&) = delete;
  MadeObjects& operator=(const MadeObjects&) = delete;

 private:
  std::vector<std::weak_ptr<Obj>> made_;
};
ObjPtr make_int(int64_t v) {
  auto o = make(Kind::kInt);
  o->i = v;
  return o;
}

const char* kind_name(Kind k) {
  constexpr const char* kNames[] = {"None", "bool", "int",    "float",   "str",   "tuple",
                                    "list", "dict", "global", "storage", "tensor"};
  return kNames[static_cast<int>(k)];
}

class Unpickler {
 public:
  Unpickler(std::span<const uint8_t> b, const std::string& where) : b_(b), where_(where) {}
  Result<ObjPtr> run();

 private:
  template <typename... P>
  Status corrupt(const P&... parts) const {
    return make_error(StatusCode::kCorrupt, where_, ": ", parts..., " (pickle byte ", op_pos_, ")");
  }
  template <typename... P>
  Status unsupported(const P&... parts) const {
    return make_error(StatusCode::kUnsupported, where_, ": ", parts..., " (pickle byte ", op_pos_,
                      ")");
  }
  Result<std::span<const uint8_t>> take(uint64_t n) {
    if (n > b_.size() - pos_) return corrupt("truncated pickle: needs ", n, " more bytes");
    auto s = b_.subspan(pos_, size_t(n));
    pos_ += size_t(n);
    return s;
  }
  Result<uint64_t> take_le(int n) {
    TIR_ASSIGN_OR_RETURN(auto s, take(uint64_t(n)));
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | s[size_t(k)];
    return v;
  }
  Result<std::string> take_line() {  // GLOBAL operands: "module\n", "name\n"
    const size_t start = pos_;
    while (pos_ < b_.size() && b_[pos_] != '\n') {
      if (pos_ - start > 256) return corrupt("GLOBAL name is too long");
      ++pos_;
    }
    if (pos_ == b_.size()) return corrupt("truncated pickle in a GLOBAL name");
    std::string s(reinterpret_cast<const char*>(b_.data() + start), pos_ - start);
    ++pos_;
    return s;
  }
  Result<ObjPtr> pop() {
    if (stack_.size() <= floor()) return corrupt("pickle stack underflow");
    ObjPtr o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  Result<ObjPtr> top() {
    if (stack_.size() <= floor()) return corrupt("pickle stack underflow");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  // Pops everything above the last MARK and the mark itself.
  Result<std::vector<ObjPtr>> pop_mark() {
    if (marks_.empty()) return corrupt("pickle opcode needs a MARK but there is none");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ObjPtr> items(std::make_move_iterator(stack_.begin() + std::ptrdiff_t(m)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  Status push(ObjPtr o) {
    stack_.push_back(std::move(o));
    return ok_status();
  }
  Status memo_put(uint64_t idx) {
    TIR_ASSIGN_OR_RETURN(ObjPtr t, top());
    memo_[idx] = std::move(t);
    return ok_status();
  }
  Status memo_get(uint64_t idx) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) return corrupt("pickle memo index ", idx, " was never stored");
    return push(it->second);
  }
  Status tuple_of(size_t n) {
    if (stack_.size() < floor() + n) return corrupt("pickle stack underflow");
    auto t = make(Kind::kTuple);
    t->items.assign(stack_.end() - std::ptrdiff_t(n), stack_.end());
    stack_.resize(stack_.size() - n);
    return push(std::move(t));
  }
  Status set_items(ObjPtr dict, std::vector<ObjPtr> kv) {
    if (dict->kind != Kind::kDict) return unsupported("SETITEM(S) on a ", kind_name(dict->kind));
    if (kv.size() % 2) return corrupt("SETITEMS with an odd number of items");
    for (size_t k = 0; k < kv.size(); k += 2) {
      bool replaced = false;  // Python dict semantics for a repeated string key
      if (kv[k]->kind == Kind::kStr)
        for (auto& [key, value] : dict->dict)
          if (key->kind == Kind::kStr && key->s == kv[k]->s) {
            value = kv[k + 1];
            replaced = true;
          }
      if (!replaced) dict->dict.emplace_back(kv[k], kv[k + 1]);
    }
    return ok_status();
  }
  Status global(const std::string& module, const std::string& name);
  Status persistent_id(const ObjPtr& pid);
  Status reduce(const ObjPtr& callable, const ObjPtr& args);
  Result<std::vector<int64_t>> int_tuple(const ObjPtr& o, const char* what);

  std::span<const uint8_t> b_;
  const std::string& where_;
  size_t pos_ = 0, op_pos_ = 0;
  std::vector<ObjPtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ObjPtr> memo_;
};

Status Unpickler::global(const std::string& module, const std::string& name) {
  auto g = make(Kind::kGlobal);
  if (module == "collections" && name == "OrderedDict") {
    g->i = int64_t(Global::kOrderedDict);
  } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    g->i = int64_t(Global::kRebuildTensorV2);
  } else if (module == "torch._utils" && name == "_rebuild_parameter") {
    g->i = int64_t(Global::kRebuildParameter);
  } else if (module == "torch._utils" && name == "_rebuild_parameter_with_state") {
    g->i = int64_t(Global::kRebuildParameterState);
  } else if (module == "torch") {
    for (const StorageTypeName& st : kStorageTypes)
      if (name == st.name) {
        g->i = int64_t(Global::kStorageType);
        g->dtype = st.dtype;
      }
    if (g->dtype == DType::kUndefined)
      return unsupported("storage type 'torch.", name, "' is not supported");
  } else {
    return unsupported("pickle global '", module, ".", name,
                       "' is not allowed (only tensors, parameters and OrderedDict)");
  }
  return push(std::move(g));
}

Status Unpickler::persistent_id(const ObjPtr& pid) {
  const auto& t = pid->items;
  if (pid->kind != Kind::kTuple || t.size() != 5 || t[0]->kind != Kind::kStr ||
      t[0]->s != "storage")
    return unsupported("persistent id is not a ('storage', type, key, location, numel) tuple");
  if (t[1]->kind != Kind::kGlobal || t[1]->i != int64_t(Global::kStorageType))
    return corrupt("persistent id has no storage type");
  if (t[2]->kind != Kind::kStr || t[2]->s.empty() || t[2]->s.size() > 64)
    return corrupt("persistent id has a bad storage key");
  for (char c : t[2]->s)  // the key becomes a member name: no '/', '.', ...
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return corrupt("storage key '", t[2]->s, "' is not a plain name");
  if (t[4]->kind != Kind::kInt || t[4]->i < 0) return corrupt("persistent id has a bad numel");
  auto s = make(Kind::kStorage);
  s->s = t[2]->s;
  s->dtype = t[1]->dtype;
  s->i = t[4]->i;
  return push(std::move(s));
}

Result<std::vector<int64_t>> Unpickler::int_tuple(const ObjPtr& o, const char* what) {
  if (o->kind != Kind::kTuple) return corrupt("tensor ", what, " is a ", kind_name(o->kind));
  if (o->items.size() > size_t(kMaxRank))
    return unsupported("tensor has rank ", o->items.size(), " (max ", kMaxRank, ")");
  std::vector<int64_t> v;
  for (const ObjPtr& e : o->items) {
    if (e->kind != Kind::kInt || e->i < 0) return corrupt("tensor ", what, " has a bad element");
    v.push_back(e->i);
  }
  return v;
}

Status Unpickler::reduce(const ObjPtr& callable, const ObjPtr& args) {
  if (callable->kind != Kind::kGlobal)
    return unsupported("REDUCE on a ", kind_name(callable->kind));
  if (args->kind != Kind::kTuple) return corrupt("REDUCE arguments are not a tuple");
  const auto& a = args->items;
  switch (Global(callable->i)) {
    case Global::kOrderedDict:
      if (!a.empty()) return unsupported("OrderedDict built from arguments");
      return push(make(Kind::kDict));
    case Global::kRebuildTensorV2: {
      if (a.size() != 6 && a.size() != 7)
        return corrupt("_rebuild_tensor_v2 takes 6 or 7 arguments, got ", a.size());
      if (a[0]->kind != Kind::kStorage) return corrupt("_rebuild_tensor_v2 without a storage");
      if (a[1]->kind != Kind::kInt || a[1]->i < 0) return corrupt("bad tensor storage offset");
      auto t = make(Kind::kTensor);
      PickledTensor& pt = t->tensor;
      TIR_ASSIGN_OR_RETURN(pt.sizes, int_tuple(a[2], "sizes"));
      TIR_ASSIGN_OR_RETURN(pt.strides, int_tuple(a[3], "strides"));
      if (pt.sizes.size() != pt.strides.size())
        return corrupt("tensor has ", pt.sizes.size(), " sizes and ", pt.strides.size(),
                       " strides");
      pt.dtype = a[0]->dtype;
      pt.storage_key = a[0]->s;
      pt.storage_numel = a[0]->i;
      pt.storage_offset = a[1]->i;
      // The last element the view touches must lie inside the storage (overflow-safe).
      uint64_t last = uint64_t(pt.storage_offset), numel = 1;
      constexpr uint64_t kLimit = uint64_t{1} << 62;
      for (size_t k = 0; k < pt.sizes.size(); ++k) {
        const uint64_t s = uint64_t(pt.sizes[k]), st = uint64_t(pt.strides[k]);
        if (s == 0) numel = 0;
        if (s > 1 && st > (kLimit - last) / (s - 1)) return corrupt("tensor view is too large");
        if (s > 1) last += (s - 1) * st;
        if (s != 0 && numel > kLimit / s) return corrupt("tensor view is too large");
        numel *= s;
      }
      if (numel != 0 && last >= uint64_t(pt.storage_numel))
        return corrupt("tensor view ends at element ", last + 1, " of storage '", pt.storage_key,
                       "' with ", pt.storage_numel, " elements");
      return push(std::move(t));
    }
    case Global::kRebuildParameter:
    case Global::kRebuildParameterState:
      if (a.size() < 3 || a[0]->kind != Kind::kTensor)
        return corrupt("_rebuild_parameter without a tensor");
      return push(a[0]);
    case Global::kStorageType:
      break;
  }
  return unsupported("a storage type is called");
}

Result<ObjPtr> Unpickler::run() {
  while (true) {
    op_pos_ = pos_;
    TIR_ASSIGN_OR_RETURN(auto opb, take(1));
    const uint8_t op = opb[0];
    switch (op) {
      case 0x80:  // PROTO
        TIR_RETURN_IF_ERROR(take(1).status());
        break;
      case 0x95:  // FRAME (protocol 4): only a length hint
        TIR_RETURN_IF_ERROR(take(8).status());
        break;
      case '.': {  // STOP
        TIR_ASSIGN_OR_RETURN(ObjPtr r, pop());
        if (!marks_.empty() || !stack_.empty())
          return corrupt("pickle stops with a non-empty stack");
        return r;
      }
      case '(':  // MARK
        marks_.push_back(stack_.size());
        break;
      case '}':  // EMPTY_DICT
        TIR_RETURN_IF_ERROR(push(make(Kind::kDict)));
        break;
      case ']':  // EMPTY_LIST
        TIR_RETURN_IF_ERROR(push(make(Kind::kList)));
        break;
      case ')':  // EMPTY_TUPLE
        TIR_RETURN_IF_ERROR(push(make(Kind::kTuple)));
        break;
      case 'N':  // NONE
        TIR_RETURN_IF_ERROR(push(make(Kind::kNone)));
        break;
      case 0x88:    // NEWTRUE
      case 0x89: {  // NEWFALSE
        auto o = make(Kind::kBool);
        o->i = op == 0x88;
        TIR_RETURN_IF_ERROR(push(std::move(o)));
        break;
      }
      case 'J': {  // BININT
        TIR_ASSIGN_OR_RETURN(uint64_t v, take_le(4));
        TIR_RETURN_IF_ERROR(push(make_int(int32_t(uint32_t(v)))));
        break;
      }
      case 'K':    // BININT1
      case 'M': {  // BININT2
        TIR_ASSIGN_OR_RETURN(uint64_t v, take_le(op == 'K' ? 1 : 2));
        TIR_RETURN_IF_ERROR(push(make_int(int64_t(v))));
        break;
      }
      case 0x8a: {  // LONG1: n-byte little-endian two's complement
        TIR_ASSIGN_OR_RETURN(uint64_t n, take_le(1));
        if (n > 8) return unsupported("integer of ", n, " bytes");
        TIR_ASSIGN_OR_RETURN(uint64_t v, take_le(int(n)));
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);
        TIR_RETURN_IF_ERROR(push(make_int(int64_t(v))));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        TIR_ASSIGN_OR_RETURN(auto s, take(8));
        uint64_t bits = 0;
        for (uint8_t c : s) bits = (bits << 8) | c;
        auto o = make(Kind::kFloat);
        o->f = std::bit_cast<double>(bits);
        TIR_RETURN_IF_ERROR(push(std::move(o)));
        break;
      }
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        TIR_ASSIGN_OR_RETURN(uint64_t n, take_le(op == 'X' ? 4 : op == 0x8c ? 1 : 8));
        TIR_ASSIGN_OR_RETURN(auto s, take(n));
        auto o = make(Kind::kStr);
        o->s.assign(reinterpret_cast<const char*>(s.data()), s.size());
        TIR_RETURN_IF_ERROR(push(std::move(o)));
        break;
      }
      case 't': {  // TUPLE
        TIR_ASSIGN_OR_RETURN(auto items, pop_mark());
        auto o = make(Kind::kTuple);
        o->items = std::move(items);
        TIR_RETURN_IF_ERROR(push(std::move(o)));
        break;
      }
      case 0x85:  // TUPLE1
      case 0x86:  // TUPLE2
      case 0x87:  // TUPLE3
        TIR_RETURN_IF_ERROR(tuple_of(size_t(op - 0x84)));
        break;
      case 'a': {  // APPEND
        TIR_ASSIGN_OR_RETURN(ObjPtr v, pop());
        TIR_ASSIGN_OR_RETURN(ObjPtr l, top());
        if (l->kind != Kind::kList) return unsupported("APPEND to a ", kind_name(l->kind));
        l->items.push_back(std::move(v));
        break;
      }
      case 'e': {  // APPENDS
        TIR_ASSIGN_OR_RETURN(auto items, pop_mark());
        TIR_ASSIGN_OR_RETURN(ObjPtr l, top());
        if (l->kind != Kind::kList) return unsupported("APPENDS to a ", kind_name(l->kind));
        for (ObjPtr& v : items) l->items.push_back(std::move(v));
        break;
      }
      case 's': {  // SETITEM
        TIR_ASSIGN_OR_RETURN(ObjPtr v, pop());
        TIR_ASSIGN_OR_RETURN(ObjPtr k, pop());
        TIR_ASSIGN_OR_RETURN(ObjPtr d, top());
        TIR_RETURN_IF_ERROR(set_items(d, {k, v}));
        break;
      }
      case 'u': {  // SETITEMS
        TIR_ASSIGN_OR_RETURN(auto items, pop_mark());
        TIR_ASSIGN_OR_RETURN(ObjPtr d, top());
        TIR_RETURN_IF_ERROR(set_items(d, std::move(items)));
        break;
      }
      case 'c': {  // GLOBAL "module\nname\n"
        TIR_ASSIGN_OR_RETURN(std::string module, take_line());
        TIR_ASSIGN_OR_RETURN(std::string name, take_line());
        TIR_RETURN_IF_ERROR(global(module, name));
        break;
      }
      case 'R': {  // REDUCE
        TIR_ASSIGN_OR_RETURN(ObjPtr args, pop());
        TIR_ASSIGN_OR_RETURN(ObjPtr callable, pop());
        TIR_RETURN_IF_ERROR(reduce(callable, args));
        break;
      }
      case 'Q': {  // BINPERSID
        TIR_ASSIGN_OR_RETURN(ObjPtr pid, pop());
        TIR_RETURN_IF_ERROR(persistent_id(pid));
        break;
      }
      case 'b': {  // BUILD: state of an OrderedDict (_metadata) or a Parameter; ignored
        TIR_ASSIGN_OR_RETURN(ObjPtr state, pop());
        TIR_ASSIGN_OR_RETURN(ObjPtr target, top());
        if (target->kind != Kind::kDict && target->kind != Kind::kTensor)
          return unsupported("BUILD on a ", kind_name(target->kind));
        break;
      }
      case 'q':    // BINPUT
      case 'r': {  // LONG_BINPUT
        TIR_ASSIGN_OR_RETURN(uint64_t idx, take_le(op == 'q' ? 1 : 4));
        TIR_RETURN_IF_ERROR(memo_put(idx));
        break;
      }
      case 0x94:  // MEMOIZE
        TIR_RETURN_IF_ERROR(memo_put(memo_.size()));
        break;
      case 'h':    // BINGET
      case 'j': {  // LONG_BINGET
        TIR_ASSIGN_OR_RETURN(uint64_t idx, take_le(op == 'h' ? 1 : 4));
        TIR_RETURN_IF_ERROR(memo_get(idx));
        break;
      }
      default:
        return unsupported("pickle opcode 0x", "0123456789abcdef"[op >> 4],
                           "0123456789abcdef"[op & 15], " is not supported");
    }
  }
}

}  // namespace

Result<std::vector<PickledTensor>> unpickle_tensor_dict(std::span<const uint8_t> bytes,
                                                        const std::string& where) {
  MadeObjects made;  // declared first: destroyed last, after every ObjPtr below
  Unpickler u(bytes, where);
  TIR_ASSIGN_OR_RETURN(ObjPtr root, u.run());
  if (root->kind != Kind::kDict)
    return make_error(StatusCode::kUnsupported, where, ": top-level object is a ",
                      kind_name(root->kind), ", expected a dict of tensors");
  std::vector<PickledTensor> out;
  for (const auto& [k, v] : root->dict) {
    if (k->kind != Kind::kStr)
      return make_error(StatusCode::kUnsupported, where, ": dict key is a ", kind_name(k->kind));
    if (v->kind != Kind::kTensor)
      return make_error(StatusCode::kUnsupported, where, ": entry '", k->s, "' is a ",
                        kind_name(v->kind), ", not a tensor");
    out.push_back(v->tensor);
    out.back().name = k->s;
  }
  return out;
}

}  // namespace tir::importer
