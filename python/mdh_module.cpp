// The Python module `mdh`: load a spec, run it on numpy arrays, tune it. A thin layer over the pipeline
// (pipeline/pipeline.h run_md_hom, pipeline/tune.h tune_md_hom): it converts arrays, keywords and errors, and holds
// no step of its own. Inputs go to the device from the arrays' own memory; the output array takes over the memory
// the device's result was read into. Errors in the spec, sizes, configuration or device raise mdh.Error with the
// message the command line prints (`apps/x.mdh:3:5: error: ...`).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "pipeline/run_inputs.h"
#include "pipeline/tune.h"
#include "pipeline/tuned_store.h"
#include "pipeline/tuning_progress.h"
#include "support/atomic_file.h"
#include "support/english.h"
#include "support/error.h"
#include "support/untrusted_json.h"

namespace py = pybind11;

namespace mdh::python {
namespace {

// numpy's name for an OpenCL C scalar type: the dtype an array must have to be a buffer of that type.
const char* dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Uint:
      return "uint32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Ulong:
      return "uint64";
    case ScalarType::Short:
      return "int16";
    case ScalarType::Ushort:
      return "uint16";
    case ScalarType::Char:
      return "int8";
    case ScalarType::Uchar:
      return "uint8";
    case ScalarType::Half:
      return "float16";
    // numpy has no bfloat16: arrays of its bit patterns, as in .npy files (runtime/npy.h).
    case ScalarType::Bfloat16:
      return "uint16";
  }
  return "";
}

// Structs (PRL's records) travel as opaque records of their size: numpy's void dtype "V14".
py::dtype dtype_of(const Mdh& mdh, const ElementType& type) {
  if (type.is_struct()) return py::dtype("V" + std::to_string(mdh.size_of(type)));
  return py::dtype(dtype_name(type.scalar));
}

std::string dtype_text(const py::dtype& dtype) {
  return py::str(static_cast<const py::handle&>(dtype)).cast<std::string>();
}

/// The tuning workers are `mdh tune-worker` processes: the mdh executable, never this Python interpreter.
/// $MDH_EXECUTABLE first, else the one of this module's build (MDH_EXECUTABLE_PATH, set by python/CMakeLists.txt),
/// else an `mdh` beside the module or in ../bin from it (a build folder moved elsewhere, as a whole).
std::string mdh_executable() {
  if (const char* env = std::getenv("MDH_EXECUTABLE"); env && *env) return env;
  std::vector<std::string> candidates = {MDH_EXECUTABLE_PATH};
  const std::filesystem::path module_dir =
      std::filesystem::path(py::module_::import("mdh").attr("__file__").cast<std::string>()).parent_path();
  candidates.push_back((module_dir / "mdh").string());
  candidates.push_back((module_dir / ".." / "bin" / "mdh").string());
  std::string looked;
  for (const std::string& candidate : candidates) {
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    looked += ", " + candidate;
  }
  throw UserError("cannot find the mdh executable that tuning workers run (looked at $MDH_EXECUTABLE" + looked +
                  "); set MDH_EXECUTABLE to its path, or tune with in_process=True");
}

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) {
  g_interrupted = true;
}

// Sizes as the pipeline takes them: "I=4,J=5"; from a dict, a string, or nothing.
std::string size_text(const py::object& sizes) {
  if (sizes.is_none()) return "";
  if (py::isinstance<py::str>(sizes)) return sizes.cast<std::string>();
  std::map<std::string, int64_t> values;
  try {
    values = sizes.cast<std::map<std::string, int64_t>>();
  } catch (const py::cast_error&) {
    throw UserError("sizes must be a dict of integers such as {'I': 1024, 'J': 512} or a string 'I=1024,J=512', not " +
                    py::repr(sizes).cast<std::string>());
  }
  std::string text;
  for (const auto& [name, value] : values) text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

// A keyword argument's number, or mdh.Error naming it (pybind's own cast error names no argument).
template <class T>
T number_of(const py::object& value, const std::string& keyword) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw UserError("tune: " + keyword + " must be a number, not " + py::repr(value).cast<std::string>());
  }
}

// What mdh's stages say in the command line's words, said in Python's: `--size I=<value>` is `sizes={'I': <value>}`.
std::string in_python_words(std::string message) {
  for (const auto& [option, keyword] : {std::pair{"--size ", "sizes"}, std::pair{"--param ", "params"}}) {
    for (size_t at = message.find(option); at != std::string::npos; at = message.find(option, at)) {
      const size_t name_start = at + std::strlen(option), equals = message.find('=', name_start);
      const size_t end = message.find_first_of(" ),;", equals);
      if (equals == std::string::npos || end == std::string::npos) break;
      const std::string name = message.substr(name_start, equals - name_start);
      const std::string value = message.substr(equals + 1, end - equals - 1);
      const std::string replacement = std::string(keyword) + "={'" + name + "': " + value + "}";
      message.replace(at, end - at, replacement);
      at += replacement.size();
    }
  }
  return message;
}

std::map<std::string, std::string> param_texts(const py::object& params) {
  std::map<std::string, std::string> out;
  if (params.is_none()) return out;
  for (const auto& item : params.cast<py::dict>())
    out[item.first.cast<std::string>()] = py::str(item.second).cast<std::string>();
  return out;
}

// A configuration given as a dict, as JSON: json.dumps writes whatever Python holds, which need not be JSON that fits
// (NaN, integers beyond 64 bits); that is an mdh.Error like any bad configuration, not a RuntimeError.
nlohmann::json config_dict_json(const py::object& config) {
  const std::string text = py::module_::import("json").attr("dumps")(config).cast<std::string>();
  try {
    return parse_untrusted_json(text);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("config: not a configuration (") + e.what() + ")");
  }
}

class Spec {
 public:
  explicit Spec(std::string path) : path_(std::move(path)), mdh_(load_spec(path_)) {}

  const std::string& path() const { return path_; }
  const std::string& name() const { return mdh_->name; }
  std::vector<std::string> sizes() const {
    std::vector<std::string> out;
    for (const auto& s : mdh_->sizes) out.push_back(s.name);
    return out;
  }
  std::vector<std::string> inputs() const {
    std::vector<std::string> out;
    for (const auto& b : mdh_->buffers)
      if (b.kind != BufferKind::Output) out.push_back(b.name);
    return out;
  }
  std::string output() const { return mdh_->buffers[mdh_->output_buffer()].name; }
  std::vector<std::string> params() const {
    std::vector<std::string> out;
    for (const auto& p : mdh_->params) out.push_back(p.name);
    return out;
  }

  py::array run(const py::object& sizes, const std::string& device, const py::object& config, bool reference,
                const py::object& params, uint64_t seed, bool verify, const std::string& tuned_results,
                bool random_inputs, const std::string& precision, const py::kwargs& arrays) const {
    RunRequest request;
    request.spec_path = path_;
    request.precision = parse_precision(precision);
    request.device = device;
    request.data.seed = seed;
    request.data.params = param_texts(params);
    request.warmup = 0;
    request.repeat = 1;
    request.verify = verify;
    if (reference && !config.is_none()) throw UserError("run: give config or reference=True, not both");
    if (reference)
      request.kernel = KernelChoice::reference();
    else if (py::isinstance<py::dict>(config))
      request.kernel = KernelChoice::from_json(config_dict_json(config));
    else if (!config.is_none())
      request.kernel = KernelChoice::option(py::str(config).cast<std::string>());
    else
      request.kernel = KernelChoice::stored(tuned_store_directory(tuned_results));
    // The store's notes are printed once the GIL is held again; a stored configuration is checked against the
    // reference the first time this Spec runs it for these sizes.
    std::vector<std::string> notes;
    request.note = [&notes](const std::string& text) { notes.push_back(text); };

    // The arrays: C-contiguous, of the buffer's dtype, read where they lie (kept alive by `arrays` for the call).
    std::vector<py::array> held;
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& item : arrays) {
      const std::string name = item.first.cast<std::string>();
      const int b = mdh_->find_buffer(name);
      if (b < 0) throw UserError("run: the spec " + mdh_->name + " declares no buffer '" + name + "'");
      const Buffer& decl = mdh_->buffers[b];
      if (decl.kind == BufferKind::Output) throw UserError("run: '" + name + "' is the output, not an input");
      py::array array = py::array::ensure(item.second, py::array::c_style);
      if (!array) throw UserError("run: input " + name + " is not an array");
      const py::dtype want = dtype_of(*mdh_, decl.type);
      if (!array.dtype().is(want) &&
          !(array.dtype().kind() == 'V' && want.kind() == 'V' && array.dtype().itemsize() == want.itemsize()))
        throw UserError("run: input " + name + " is " + indefinite_article(dtype_text(array.dtype())) + " " +
                        dtype_text(array.dtype()) + " array, but " + name + " holds " +
                        (decl.type.is_struct() ? decl.type.struct_name : std::string(opencl_name(decl.type.scalar))) +
                        " (numpy " + dtype_text(want) + "); convert it with .astype(numpy." + dtype_text(want) + ")");
      std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
      shapes[name] = shape;
      HostBufferView view;
      view.shape.name = name;
      view.shape.type = decl.type;
      view.shape.element_size = mdh_->size_of(decl.type);
      view.shape.extents = shape;
      view.data = static_cast<const unsigned char*>(array.data());
      view.size = static_cast<size_t>(array.nbytes());
      request.input_views[name] = view;
      held.push_back(array);
    }
    // Every input is given, unless seeded random data is asked for: a forgotten array must not pass unnoticed.
    if (!random_inputs)
      for (const auto& b : mdh_->buffers)
        if (b.kind != BufferKind::Output && !arrays.contains(b.name))
          throw UserError("run: input " + b.name + " is missing; pass it as " + b.name +
                          "=array (or random_inputs=True for seeded random data, as `mdh run` makes)");
    // Sizes: the ones given, the rest from the arrays' shapes.
    SizeBinding bound_sizes = sizes_from_shapes(*mdh_, shapes);
    for (const auto& [name, value] : parse_size_binding(size_text(sizes))) bound_sizes[name] = value;
    std::string text;
    for (const auto& [name, value] : bound_sizes)
      text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
    request.sizes = text;

    request.stored_needs_check = [this, &text](const StoredConfiguration& stored) {
      return checked_stored_.count(stored.path + " " + text) == 0;
    };

    std::optional<RunOutcome> outcome;
    auto print_notes = [this, &notes] {  // each once per Spec: a loop of runs says it once
      py::object err = py::module_::import("sys").attr("stderr");
      for (const std::string& note : notes)
        if (printed_notes_.insert(note).second) err.attr("write")("note: " + note + "\n");
    };
    try {
      py::gil_scoped_release unlocked;
      outcome.emplace(run_md_hom(request));
    } catch (...) {
      print_notes();
      throw;
    }
    print_notes();
    if (outcome->stored && outcome->verification && outcome->verification->passed)
      checked_stored_.insert(outcome->stored->path + " " + text);
    if (outcome->verification && !outcome->verification->passed)
      throw VerificationFailed(outcome->verification->summary());
    return to_numpy(std::move(outcome->output), outcome->bound);
  }

  py::tuple tune(const py::object& sizes, const py::object& budget, const py::object& evals, const py::object& device,
                 const py::object& technique, uint64_t seed, const py::object& journal, const py::object& out,
                 bool resume, bool in_process, const py::object& params, bool progress, int finalists,
                 const std::string& tuned_results, const std::string& precision) const {
    TuningRequest request;
    request.spec_path = path_;
    request.precision = parse_precision(precision);
    request.sizes = size_text(sizes);
    if (py::isinstance<py::str>(device))
      request.device_selectors = {device.cast<std::string>()};
    else if (!device.is_none())
      request.device_selectors = device.cast<std::vector<std::string>>();
    if (request.device_selectors.empty()) request.device_selectors = {""};
    request.data.seed = seed;
    request.data.params = param_texts(params);

    TuningSettings settings;
    if (finalists < 0) throw UserError("tune: finalists must be 0 or more");
    settings.finalists = static_cast<size_t>(finalists);
    if (!technique.is_none()) settings.technique = technique.cast<std::string>();
    settings.seed = seed;
    auto add = [&](tuner::Abort a) { settings.abort = settings.abort ? (*settings.abort || a) : a; };
    TuningHorizon horizon;
    if (!evals.is_none()) {
      const int64_t count = number_of<int64_t>(evals, "evals");
      if (count < 1) throw UserError("tune: evals must be at least 1, not " + std::to_string(count));
      horizon.evaluations = static_cast<uint64_t>(count);
      add(tuner::evaluations(*horizon.evaluations));
    }
    if (!budget.is_none()) {
      settings.budget_seconds = number_of<double>(budget, "budget");
      if (!(*settings.budget_seconds > 0) || !std::isfinite(*settings.budget_seconds))
        throw UserError("tune: budget must be a positive number of seconds, not " +
                        py::repr(budget).cast<std::string>());
      horizon.seconds = settings.budget_seconds;
      add(tuner::duration(*settings.budget_seconds));
    }
    if (!settings.abort) horizon.evaluations = kDefaultTuningEvaluations;
    // A journal of its own unless one is named: a second tune() never meets the first one's journal by accident.
    settings.journal_path = journal.is_none() ? fresh_journal_path() : py::str(journal).cast<std::string>();
    settings.resume = resume;
    settings.in_process = in_process;
    // Like `mdh tune`: the best stored results of the same md_hom are among the starts.
    if (const std::string store = tuned_store_directory(tuned_results); store != kNoTunedStore && !store.empty())
      settings.transfer_folder = store;
    if (!in_process) settings.worker_executable = mdh_executable();

    // Ctrl-C stops the search as it stops `mdh tune`: cleanly, keeping the best so far. Python's own handler could
    // not run while the search holds the thread, so ours stands in for the call's duration.
    g_interrupted = false;
    settings.interrupt = &g_interrupted;
    const auto python_handler = std::signal(SIGINT, on_interrupt);
    std::optional<TuningOutcome> outcome;
    {
      struct RestoreHandler {
        decltype(python_handler) handler;
        ~RestoreHandler() { std::signal(SIGINT, handler); }
      } restore{python_handler};
      py::gil_scoped_release unlocked;
      std::optional<TuningProgress> shown;
      if (progress) {
        shown.emplace(std::cerr, ::isatty(STDERR_FILENO) != 0, horizon);
        settings.on_evaluation = [&](const tuner::TuningStatus& s, const tuner::EvaluationRecord& r, bool replayed) {
          shown->on_evaluation(s, r, replayed);
        };
      }
      outcome.emplace(tune_md_hom(request, settings));
    }
    if (!outcome->result_file) {
      const uint64_t evaluated = outcome->result.status.evaluations;
      throw UserError("tune: no valid configuration found: " +
                      (evaluated == 0 ? std::string("no evaluation was made (") + outcome->result.stop_reason + ")"
                                      : std::to_string(evaluated) + " evaluations, none valid; the journal " +
                                            settings.journal_path + " says why for each"));
    }
    const nlohmann::json result = outcome->result_file->to_json();
    if (!out.is_none()) {
      const std::string path = py::str(out).cast<std::string>();
      write_file_atomically(path, result.dump(2) + "\n");
    }
    py::object config = py::module_::import("json").attr("loads")(result.at("config").dump());
    return py::make_tuple(config, settings.journal_path);
  }

  struct VerificationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

 private:
  // A journal of its own in a temporary folder, removed when Python exits (the path tune() returns stays valid
  // until then).
  static std::string fresh_journal_path() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string dir = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/mdh-tune-XXXXXX";
    if (!::mkdtemp(dir.data())) throw UserError("tune: cannot create a folder for the journal in " + dir);
    static std::vector<std::string>* folders = [] {
      auto* list = new std::vector<std::string>();
      py::module_::import("atexit").attr("register")(py::cpp_function([list] {
        for (const std::string& folder : *list) {
          std::error_code ignored;
          std::filesystem::remove_all(folder, ignored);
        }
      }));
      return list;
    }();
    folders->push_back(dir);
    return dir + "/tuning.journal";
  }

  // The output's bytes become the array's memory: no copy after the read from the device.
  py::array to_numpy(HostBuffer output, const BoundMdh& bound) const {
    const py::dtype dtype = dtype_of(*bound.mdh, output.type);
    std::vector<py::ssize_t> shape(output.extents.begin(), output.extents.end());
    auto* bytes = new std::vector<unsigned char>(std::move(output.bytes));
    py::capsule owner(bytes, [](void* p) { delete static_cast<std::vector<unsigned char>*>(p); });
    return py::array(dtype, shape, {}, bytes->data(), owner);
  }

  std::string path_;
  std::shared_ptr<const Mdh> mdh_;
  // "STORED_RESULT SIZES" of the stored configurations that passed the reference check in this Spec's runs.
  mutable std::set<std::string> checked_stored_;
  // The store's notes this Spec has printed.
  mutable std::set<std::string> printed_notes_;
};

}  // namespace
}  // namespace mdh::python

PYBIND11_MODULE(mdh, m) {
  using mdh::python::Spec;
  m.doc() =
      "mdh: Multi-Dimensional Homomorphisms to tuned OpenCL kernels (load a spec, run it on numpy arrays, "
      "tune it)";
  static py::exception<mdh::UserError> error(m, "Error", PyExc_ValueError);
  static py::exception<Spec::VerificationFailed> verification(m, "VerificationError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Spec::VerificationFailed& e) {
      verification(e.what());
    } catch (const mdh::UserError& e) {
      error(mdh::python::in_python_words(e.what()).c_str());
    } catch (const mdh::InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError,
                      (std::string(e.what()) + "\nThis is a bug in mdh; please report it.").c_str());
    }
  });

  py::class_<Spec>(m, "Spec", "A checked md_hom spec (mdh.load)")
      .def_property_readonly("path", &Spec::path)
      .def_property_readonly("name", &Spec::name, "the md_hom's name")
      .def_property_readonly("sizes", &Spec::sizes, "the declared size names")
      .def_property_readonly("inputs", &Spec::inputs, "the input and table buffers")
      .def_property_readonly("output", &Spec::output, "the output buffer")
      .def_property_readonly("params", &Spec::params, "the declared params")
      .def("run", &Spec::run, py::kw_only(), py::arg("sizes") = py::none(), py::arg("device") = "",
           py::arg("config") = py::none(), py::arg("reference") = false, py::arg("params") = py::none(),
           py::arg("seed") = 1, py::arg("verify") = false, py::arg("tuned_results") = "",
           py::arg("random_inputs") = false, py::arg("precision") = "fp32",
           "run(*, sizes=None, device='', config=None, reference=False, params=None, seed=1, verify=False, "
           "tuned_results='', random_inputs=False, precision='fp32', **inputs) -> numpy.ndarray\n\n"
           "Runs the tunable kernel (config: a dict or the path of a config or `mdh tune` result; 'default': the "
           "device's default configuration; None: the configuration tuned for the nearest sizes in the store "
           "tuned_results (default: $MDH_TUNED_RESULTS, else the source tree's tuned/; 'none': no store), checked "
           "against the reference the first time, else the default; reference=True: the reference kernel) on the "
           "given input arrays "
           "(of the buffer's dtype, any memory layout: views and slices are copied into C order where they are not; "
           "every input must be given, unless random_inputs=True fills the missing ones with seeded random data as "
           "`mdh run` does) and returns the output. Sizes not given (a dict or 'I=..,J=..') are taken from the arrays' "
           "shapes. "
           "verify=True checks the result against mdh's reference and raises mdh.VerificationError if it differs. "
           "precision='tf32' computes matrix-product md_homs on tensor cores, inputs rounded to TF32 (NVIDIA GPUs of "
           "compute capability 8.0 or later; elsewhere fp32, with a note).")
      .def("tune", &Spec::tune, py::arg("sizes"), py::kw_only(), py::arg("budget") = py::none(),
           py::arg("evals") = py::none(), py::arg("device") = py::none(), py::arg("technique") = py::none(),
           py::arg("seed") = 1, py::arg("journal") = py::none(), py::arg("out") = py::none(), py::arg("resume") = false,
           py::arg("in_process") = false, py::arg("params") = py::none(), py::arg("progress") = true,
           py::arg("finalists") = static_cast<int>(mdh::kDefaultFinalists), py::arg("tuned_results") = "",
           py::arg("precision") = "fp32",
           "tune(sizes, *, budget=None, evals=None, device=None, technique=None, seed=1, journal=None, "
           "out=None, resume=False, in_process=False, params=None, progress=True, finalists=3, tuned_results='', "
           "precision='fp32') -> "
           "(config, journal_path)\n\n"
           "Auto-tunes as `mdh tune` does (budget in seconds, evals a count; neither: 200 evaluations; technique None: "
           "the default, or with resume=True the journal's), evaluating in "
           "`mdh tune-worker` processes of the mdh executable ($MDH_EXECUTABLE or the one built with this module). "
           "Returns the best configuration (a dict run(config=...) takes) and the journal's path (a fresh one "
           "unless journal= names one): the fastest of the search's `finalists` fastest and the default, timed "
           "again side by side as the benchmark times them (0: the search's best). out= also writes the result file "
           "`mdh run --config` reads, with that final timing. Like `mdh tune`, the search also starts from the best "
           "stored results of the same md_hom in tuned_results (as for run(); 'none': not). Without journal=, the "
           "journal lies in a temporary folder that is removed when Python exits.");
  m.def(
      "load", [](const std::string& path) { return Spec(path); }, py::arg("path"),
      "load(path) -> Spec: parses and checks a spec file; a broken spec raises mdh.Error('FILE:LINE:COL: error: ...')");
}
