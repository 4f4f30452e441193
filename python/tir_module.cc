// The `tir` Python module (pybind11) over the C++ API (runtime/exec/session.h):
//
//   import numpy as np, tir
//   s = tir.Session("model.tir", "model.bin")          # or weights=[base, delta, ...]
//   (y,) = s.run({"x": np.ones((1, 3, 32, 32), np.float32)})
//
// Inputs are zero copy: a C-contiguous array of the input's dtype is read in place by the
// kernels (non-contiguous arrays are made contiguous first, a copy). Outputs are copied into
// new arrays by default, because a run's outputs live in the session's activation arena, which
// the next run on the same thread overwrites. run(..., copy=False) returns read-only arrays
// viewing that arena instead (zero copy; they keep the session alive); any next run on that
// thread (copy=True or not) raises tir.Error while any of them is still referenced, so a view
// can never change under its reader. Every array made here gets its strides from tir's element
// sizes, and the import refuses a NumPy whose ABI this build misreads (check_numpy_abi). Errors
// raise tir.Error with tir's one-line message and `code`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/version.h"
#include "python/errors.h"
#include "runtime/exec/session.h"
#include "runtime/weights/safetensors_writer.h"
#include "runtime/weights/weight_set.h"
#include "tooling/inspect/inspect_model.h"

namespace py = pybind11;
using tir::python::cast_arg;
using tir::python::check;
using tir::python::error_type;
using tir::python::raise;
using tir::python::type_name;
using tir::python::unwrap;

namespace {

/// `f()` with the GIL released (file reads, weight checks, runs); errors are raised after.
template <typename F>
auto without_gil(F&& f) {
  py::gil_scoped_release nogil;
  return f();
}

/// numpy's name for a tir dtype; empty where numpy has none (bfloat16).
std::string numpy_format(tir::DType d) {
  switch (d) {
    case tir::DType::kBool:
      return "?";
    case tir::DType::kUInt8:
      return "u1";
    case tir::DType::kInt8:
      return "i1";
    case tir::DType::kInt16:
      return "i2";
    case tir::DType::kInt32:
      return "i4";
    case tir::DType::kInt64:
      return "i8";
    case tir::DType::kFloat16:
      return "f2";
    case tir::DType::kFloat32:
      return "f4";
    case tir::DType::kFloat64:
      return "f8";
    case tir::DType::kComplexFloat:
      return "c8";
    case tir::DType::kComplexDouble:
      return "c16";
    default:
      return "";
  }
}

/// ml_dtypes' bfloat16 (NumPy has none), or an error naming `what` when it is not installed.
py::dtype bfloat16_dtype(const std::string& what) {
  try {
    return py::dtype::from_args(py::module_::import("ml_dtypes").attr("bfloat16"));
  } catch (const py::error_already_set&) {
    raise(tir::StatusCode::kUnsupported,
          what +
              ": dtype bfloat16 needs the ml_dtypes package (NumPy has no bfloat16): "
              "pip install ml_dtypes");
  }
  return py::dtype("f4");  // not reached: raise throws
}

py::dtype numpy_dtype(tir::DType d, const std::string& what) {
  if (d == tir::DType::kBFloat16) return bfloat16_dtype(what);
  const std::string f = numpy_format(d);
  if (f.empty())
    raise(tir::StatusCode::kUnsupported,
          what + ": dtype " + std::string(tir::dtype_name(d)) + " has no NumPy equivalent");
  return py::dtype(f);
}

/// C-contiguous strides in bytes from tir's own element size, never from NumPy's dtype
/// object (whose layout changed in NumPy 2; a binding that misreads it makes zero strides).
std::vector<py::ssize_t> c_strides(tir::DType d, std::span<const int64_t> shape) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = static_cast<py::ssize_t>(tir::dtype_size(d));
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= static_cast<py::ssize_t>(std::max<int64_t>(shape[i], 1));
  }
  return strides;
}

/// Refuses a NumPy whose arrays this build cannot describe: each dtype's item size, and the
/// strides of an array made here, must be what tir computes. Run once at import, so a binding
/// that misreads NumPy's ABI fails to import instead of returning wrong arrays.
void check_numpy_abi() {
  const std::string numpy_version =
      py::str(py::module_::import("numpy").attr("__version__")).cast<std::string>();
  const std::string why = "tir: this build of the module (pybind11 " +
                          std::to_string(PYBIND11_VERSION_MAJOR) + "." +
                          std::to_string(PYBIND11_VERSION_MINOR) +
                          ") cannot describe arrays of NumPy " + numpy_version + ": ";
  for (tir::DType d :
       {tir::DType::kBool, tir::DType::kUInt8, tir::DType::kInt8, tir::DType::kInt16,
        tir::DType::kInt32, tir::DType::kInt64, tir::DType::kFloat16, tir::DType::kFloat32,
        tir::DType::kFloat64, tir::DType::kComplexFloat, tir::DType::kComplexDouble}) {
    const py::dtype dt(numpy_format(d));
    if (static_cast<size_t>(dt.itemsize()) != tir::dtype_size(d))
      throw py::import_error(why + "the item size of " + std::string(tir::dtype_name(d)) +
                             " reads as " + std::to_string(dt.itemsize()) + ", not " +
                             std::to_string(tir::dtype_size(d)) +
                             " (rebuild it against pybind11 >= 2.12)");
  }
  const py::array probe(py::dtype("f4"), std::vector<py::ssize_t>{2, 3});
  if (probe.strides(0) != 12 || probe.strides(1) != 4)
    throw py::import_error(
        why + "a float32 [2, 3] array gets strides (" + std::to_string(probe.strides(0)) + ", " +
        std::to_string(probe.strides(1)) + "), not (12, 4) (rebuild it against pybind11 >= 2.12)");
}

/// The tir dtype of `a`, or kUndefined.
tir::DType dtype_of(const py::array& a) {
  for (tir::DType d :
       {tir::DType::kBool, tir::DType::kUInt8, tir::DType::kInt8, tir::DType::kInt16,
        tir::DType::kInt32, tir::DType::kInt64, tir::DType::kFloat16, tir::DType::kFloat32,
        tir::DType::kFloat64, tir::DType::kComplexFloat, tir::DType::kComplexDouble})
    if (a.dtype().equal(py::dtype(numpy_format(d)))) return d;
  // ml_dtypes' bfloat16: a 2-byte NumPy dtype of that name (not imported unless used).
  if (a.itemsize() == 2 && py::str(a.dtype()).cast<std::string>() == "bfloat16")
    return tir::DType::kBFloat16;
  return tir::DType::kUndefined;
}

/// A C-contiguous array: `obj` itself when it already is one (zero copy), else a copy; what
/// NumPy cannot turn into an array is an error naming `what`.
py::array contiguous(py::handle obj, const std::string& what) {
  py::array a = py::array::ensure(obj, py::array::c_style);
  if (!a)
    raise(tir::StatusCode::kInvalidArgument, what + ": " + type_name(obj) + " is not an array");
  return a;
}

py::list io_list(const std::vector<tir::IoSpec>& specs) {
  py::list out;
  for (const tir::IoSpec& s : specs) {
    py::list shape;
    for (int64_t d : s.shape) shape.append(d < 0 ? py::object(py::none()) : py::int_(d));
    py::dict e;
    e["name"] = s.name;
    e["dtype"] = numpy_format(s.dtype).empty() ? py::object(py::str(tir::dtype_name(s.dtype)))
                                               : py::object(py::dtype(numpy_format(s.dtype)));
    e["shape"] = py::tuple(shape);
    e["dims"] = s.dims;
    if (s.mutated) e["mutated"] = true;  // the program writes it (user_input_mutation)
    out.append(e);
  }
  return out;
}

/// A weight set from a str path, a list of paths (base, then deltas laid over it) or a dict
/// name -> array (serialized to safetensors in memory: one copy).
std::shared_ptr<const tir::WeightSet> weights_from(py::handle src,
                                                   const tir::WeightSetOptions& options) {
  if (py::isinstance<py::str>(src) || py::hasattr(src, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(src));
    return unwrap(without_gil([&] { return tir::WeightSet::open(path, options); }));
  }
  if (py::isinstance<py::dict>(src)) {
    std::vector<py::array> keep;
    std::vector<tir::SafetensorsEntry> entries;
    for (auto [k, v] : py::cast<py::dict>(src)) {
      tir::SafetensorsEntry e;
      e.name = cast_arg<std::string>(k, "weights: a dict's key", "a tensor name (str)");
      py::array a = contiguous(v, "weights: tensor '" + e.name + "'");
      e.dtype = dtype_of(a);
      if (e.dtype == tir::DType::kUndefined)
        raise(tir::StatusCode::kInvalidArgument, "weights: tensor '" + e.name +
                                                     "' has unsupported dtype " +
                                                     py::cast<std::string>(py::str(a.dtype())));
      e.shape.assign(a.shape(), a.shape() + a.ndim());
      e.bytes = {static_cast<const uint8_t*>(a.data()),
                 size_t(a.size()) * tir::dtype_size(e.dtype)};
      keep.push_back(std::move(a));
      entries.push_back(std::move(e));
    }
    std::vector<uint8_t> bytes = unwrap(tir::safetensors_serialize(entries));
    return unwrap(without_gil([&] {
      return tir::WeightSet::from_source(
          tir::data_source_from_buffer(std::move(bytes), "<dict of arrays>"), options);
    }));
  }
  if (py::isinstance<py::list>(src) || py::isinstance<py::tuple>(src)) {
    std::vector<std::string> paths;
    for (py::handle p : src) paths.push_back(py::str(py::module_::import("os").attr("fspath")(p)));
    if (paths.empty()) raise(tir::StatusCode::kInvalidArgument, "weights: empty list of paths");
    return unwrap(without_gil([&] { return tir::WeightSet::open_layers(paths, options); }));
  }
  throw py::type_error("weights: expected a path, a list of paths or a dict of arrays");
}

class PySession {
 public:
  PySession(const std::string& model, py::handle weights, const std::string& method, int threads,
            const std::string& precision, bool fuse, bool verify_checksums,
            const PySession* state_of, std::optional<uint64_t> seed) {
    tir::SessionOptions o;
    o.method = method;
    o.seed = seed;
    if (state_of) o.state = state_of->session_->state();  // e.g. decode continues prefill's cache
    o.fuse = fuse;
    o.precision = unwrap(tir::precision_from_name(precision));
    o.weights.verify_checksums = verify_checksums;
    if (threads < 0) raise(tir::StatusCode::kInvalidArgument, "threads must be >= 0");
    weight_options_ = o.weights;
    auto set = weights_from(weights, weight_options_);
    if (threads > 0) tir::set_num_threads(threads);
    auto source = unwrap(without_gil([&] { return tir::data_source_mmap(model); }));
    session_ = unwrap(
        without_gil([&] { return tir::Session::create(std::move(source), std::move(set), o); }));
  }

  py::list run(py::handle self, py::handle inputs, bool copy, const std::string& adapter) {
    const auto& specs = session_->inputs();
    std::vector<py::array> arrays(specs.size());
    std::vector<py::object> given_objects(specs.size());  // what the caller passed
    std::vector<bool> given(specs.size(), false);         // (a default py::array is an empty array)
    size_t copies = 0;                                    // inputs that had to be made C-contiguous
    if (py::isinstance<py::dict>(inputs)) {
      for (auto [k, v] : py::cast<py::dict>(inputs)) {
        const std::string name =
            cast_arg<std::string>(k, "run(): an inputs dict's key", "an input name (str)");
        const int i = session_->input_index(name);
        if (i < 0) {
          std::string names;
          for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
          raise(tir::StatusCode::kNotFound,
                "unknown input '" + name + "' (the method's inputs: " + names + ")");
        }
        arrays[i] = contiguous(v, "input '" + name + "'");
        given_objects[i] = py::reinterpret_borrow<py::object>(v);
        given[i] = true;
        copies += arrays[i].ptr() != v.ptr();
      }
    } else {
      if (!py::isinstance<py::sequence>(inputs) || py::isinstance<py::str>(inputs))
        throw py::type_error(
            "run(): inputs must be a dict of name -> array or a list of arrays, "
            "not " +
            type_name(inputs));
      py::sequence seq = py::reinterpret_borrow<py::sequence>(inputs);
      if (seq.size() != specs.size())
        raise(tir::StatusCode::kInvalidArgument, "expected " + std::to_string(specs.size()) +
                                                     " inputs, got " + std::to_string(seq.size()));
      for (size_t i = 0; i < specs.size(); ++i) {
        py::object v = seq[i];
        arrays[i] = contiguous(v, "input '" + specs[i].name + "'");
        given_objects[i] = v;
        given[i] = true;
        copies += arrays[i].ptr() != v.ptr();
      }
    }
    std::vector<tir::Tensor> tensors(specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!given[i])
        raise(tir::StatusCode::kInvalidArgument, "input '" + specs[i].name + "' is missing");
      const py::array& a = arrays[i];
      const tir::DType d = dtype_of(a);
      if (d != specs[i].dtype)
        raise(tir::StatusCode::kInvalidArgument,
              "input '" + specs[i].name + "': dtype " + py::cast<std::string>(py::str(a.dtype())) +
                  ", expected " + std::string(tir::dtype_name(specs[i].dtype)) +
                  (specs[i].dtype == tir::DType::kBFloat16
                       ? " (an array of ml_dtypes' bfloat16; NumPy has none: pip install ml_dtypes)"
                       : ""));
      if (a.ndim() > tir::kMaxRank)
        raise(tir::StatusCode::kInvalidArgument,
              "input '" + specs[i].name + "': rank " + std::to_string(a.ndim()) + " is too large");
      tensors[i] = tir::make_tensor(d, std::span<const int64_t>(a.shape(), size_t(a.ndim())),
                                    const_cast<void*>(a.data()));
      // An input the program writes gets its new value as torch's eager module's does: in
      // place, so it must be an array NumPy lets us write.
      if (specs[i].mutated &&
          (!py::isinstance<py::array>(given_objects[i]) ||
           !py::cast<py::array>(given_objects[i]).writeable() || !a.writeable()))
        raise(tir::StatusCode::kInvalidArgument,
              "input '" + specs[i].name +
                  "' is written by the program (user_input_mutation): pass a writable NumPy "
                  "array");
    }
    input_copies_ = copies;
    // Any run on this thread overwrites its context's arena, which the views of an earlier
    // copy=False run still show: refused while one is referenced, whatever this run's `copy`.
    refuse_while_viewed();
    py::object lease;
    if (!copy) lease = take_lease(self);
    const std::span<const tir::Tensor> outs =
        unwrap(without_gil([&] { return session_->run(tensors, adapter); }));
    for (size_t i = 0; i < specs.size(); ++i)  // a written input the run saw as a copy
      if (specs[i].mutated && arrays[i].ptr() != given_objects[i].ptr())
        py::module_::import("numpy").attr("copyto")(given_objects[i], arrays[i]);
    py::list result;
    for (size_t i = 0; i < outs.size(); ++i) {
      const tir::Tensor& t = outs[i];
      const std::string what = "output " + std::to_string(i);
      std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
      const std::vector<py::ssize_t> strides = c_strides(t.dtype, t.shape());
      if (copy) {
        py::array a(numpy_dtype(t.dtype, what), shape, strides);
        if (t.nbytes()) std::memcpy(a.mutable_data(), t.data, t.nbytes());
        result.append(a);
      } else {
        py::array a(numpy_dtype(t.dtype, what), shape, strides, t.data, lease);
        py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        result.append(a);
      }
    }
    return result;
  }

  void swap_weights(py::handle weights, bool overlay) {
    auto set = weights_from(weights, weight_options_);
    if (overlay) {
      std::shared_ptr<const tir::WeightSet> deltas[] = {set};
      set =
          unwrap(without_gil([&] { return tir::WeightSet::overlay(session_->weights(), deltas); }));
    }
    check(without_gil([&] { return session_->swap_weights(std::move(set)); }));
  }

  py::dict info() const {
    py::dict d;
    d["method"] = session_->method_name();
    d["nodes"] = session_->num_nodes();
    d["fused_groups"] = session_->num_fused_groups();
    d["arena_bytes"] = session_->arena_bytes();
    d["weights_generation"] = session_->weights_generation();
    d["input_copies"] = input_copies_;
    return d;
  }

  tir::Session& session() { return *session_; }

 private:
  /// The base object of one run's copy=False views: it holds the session (so the arena
  /// outlives the views) and is owned by the views alone; it is listed in `leases_` while any
  /// view of it lives. Touched only with the GIL held.
  struct Lease {
    py::object session;
    PySession* owner;
    std::thread::id thread;
  };

  /// Raises while a view of the calling thread's previous copy=False run is alive (that
  /// run's memory is what the next run on this thread overwrites).
  void refuse_while_viewed() const {
    if (leases_.count(std::this_thread::get_id()))
      raise(tir::StatusCode::kInvalidArgument,
            "outputs of this thread's previous run(copy=False) are still referenced; the next "
            "run on this thread would overwrite them (delete them first)");
  }

  /// The base object of the calling thread's copy=False views (refuse_while_viewed first).
  py::object take_lease(py::handle self) {
    const std::thread::id tid = std::this_thread::get_id();
    auto* lease = new Lease{py::reinterpret_borrow<py::object>(self), this, tid};
    leases_.insert(tid);
    return py::capsule(lease, [](void* p) {
      auto* l = static_cast<Lease*>(p);
      l->owner->leases_.erase(l->thread);
      delete l;
    });
  }

  std::unique_ptr<tir::Session> session_;
  tir::WeightSetOptions weight_options_;
  std::set<std::thread::id> leases_;
  size_t input_copies_ = 0;  // of the last run: inputs copied to make them C-contiguous
};

py::object inspect(const std::string& model) {
  tir::tools::InspectOptions o;
  o.model_path = model;
  o.json = true;
  std::ostringstream out;
  check(tir::tools::inspect_model(o, out));
  return py::module_::import("json").attr("loads")(out.str());
}

}  // namespace

PYBIND11_MODULE(tir, m) {
  check_numpy_abi();
  m.doc() = "tir: run torch.export programs imported with `tirc import` (no torch needed)";
  error_type() = py::reinterpret_borrow<py::object>(
      PyErr_NewException("tir.Error", PyExc_RuntimeError, nullptr));
  m.attr("Error") = error_type();
  m.attr("__version__") = tir::version_string();
  m.def("inspect", &inspect, py::arg("model"),
        "What a .tir holds (methods, symbols, inputs, outputs, ops, weights) as a dict: the "
        "JSON of `tirc inspect --json`.");
  tir::python::bind_generate(m);
  m.def("set_num_threads", &tir::set_num_threads, py::arg("threads"),
        "CPU threads kernels use (process-wide); 0 keeps the default.");
  py::class_<PySession>(m, "Session",
                        "A model bound to its weights, ready to run one method. Thread-safe: "
                        "each Python thread runs in its own context (run releases the GIL).")
      .def(py::init([](py::object model, py::handle weights, const std::string& method, int threads,
                       const std::string& precision, bool fuse, bool verify_checksums,
                       const PySession* state_of, std::optional<uint64_t> seed) {
             const std::string path = py::str(py::module_::import("os").attr("fspath")(model));
             return std::make_unique<PySession>(path, weights, method, threads, precision, fuse,
                                                verify_checksums, state_of, seed);
           }),
           py::arg("model"), py::arg("weights"), py::kw_only(), py::arg("method") = "forward",
           py::arg("threads") = 0, py::arg("precision") = "f32", py::arg("fuse") = true,
           py::arg("verify_checksums") = true, py::arg("state_of") = nullptr,
           py::arg("seed") = py::none(),
           "Opens `model` (.tir) with `weights`: a tir weight file or .safetensors path, a list "
           "of paths (base, then overlays laid over it in order), or a dict name -> array. "
           "state_of=another Session shares its state: the buffers the model's methods mutate, "
           "such as an LLM's KV cache (a decode session continues a prefill session's cache). "
           "seed=N: the random ops (rand, randn, randperm) draw the same values for the same "
           "seed and sequence of runs; None: a fresh seed per open.")
      .def(
          "run",
          [](py::object self, py::handle inputs, bool copy, std::optional<std::string> adapter) {
            return self.cast<PySession&>().run(self, inputs, copy, adapter.value_or(""));
          },
          py::arg("inputs"), py::kw_only(), py::arg("copy") = true, py::arg("adapter") = py::none(),
          "Runs the method on `inputs` (dict name -> array, or a sequence in signature order) "
          "and returns the outputs as a list of arrays. Inputs are read in place (zero copy) "
          "when C-contiguous. copy=True (default): outputs are new arrays. copy=False: read-only "
          "views of the session's memory, valid until this thread's next run, which raises "
          "tir.Error while any of them is still referenced. adapter='name': with that LoRA "
          "adapter (load_adapter) applied; None: the base model.")
      .def(
          "load_adapter",
          [](PySession& s, const std::string& name, py::object path) {
            const std::string p = py::str(py::module_::import("os").attr("fspath")(path));
            check(without_gil([&] { return s.session().load_adapter(name, p); }));
          },
          py::arg("name"), py::arg("path"),
          "Reads the PEFT LoRA adapter at `path` (the folder save_pretrained wrote, or its "
          "adapter_model.safetensors) and makes it runnable as run(..., adapter=name). Any "
          "thread, while runs go on.")
      .def(
          "unload_adapter",
          [](PySession& s, const std::string& name) {
            check(without_gil([&] { return s.session().unload_adapter(name); }));
          },
          py::arg("name"), "Forgets adapter `name`; runs in flight with it finish with it.")
      .def_property_readonly("adapters", [](PySession& s) { return s.session().adapter_names(); })
      .def("swap_weights", &PySession::swap_weights, py::arg("weights"), py::kw_only(),
           py::arg("overlay") = false,
           "Installs new weights for later runs (checked against the model first; the current "
           "ones stay on failure): a path, a list of paths (base + overlays) or a dict name -> "
           "array. overlay=True lays them over the current weights (a partial set).")
      .def_property_readonly("inputs", [](PySession& s) { return io_list(s.session().inputs()); })
      .def_property_readonly("outputs", [](PySession& s) { return io_list(s.session().outputs()); })
      .def_property_readonly("method", [](PySession& s) { return s.session().method_name(); })
      .def(
          "reset_state",
          [](PySession& s) { check(without_gil([&] { return s.session().reset_state(); })); },
          "Puts the state's buffers (a KV cache) back to their initial values: a new "
          "conversation, for every session sharing the state.")
      .def("info", &PySession::info,
           "Statistics of the calling thread's context: nodes, fused groups, arena bytes.");
}
