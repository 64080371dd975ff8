// Runs one exported kernel (what `mdh export` or `mdh generate --launch` wrote) several times on the same inputs,
// each run with its own OpenCL C file and build options, and says which runs disagree with the first (or with a
// saved output). The tool for telling a driver's optimiser bug from a kernel bug: a kernel that is right with
// `-cl-opt-disable` and wrong without it, on identical inputs, is the case to reduce and report.
//
// Usage: compare_builds LAUNCH.json [--device gpu|cpu|any] [--seed N] [--save FILE] [--expect FILE] [--binaries DIR]
//                       RUN...
//   --binaries DIR writes each run's program binary (PTX on NVIDIA) to DIR/run<k>.bin.
//   RUN is OPTIONS::FILE.cl, e.g. "-cl-opt-disable::gemm.cl" or "::gemm.cl" (the launch file's options come first).
// Prints one line per run: "same", "differs in N of M elements (first #i: expected x, got y)" or "error: ...".
// Exit status: 0 all runs agree, 1 some run differs, 3 some run failed to build or run, 2 bad usage.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mdh_runner.hpp"

namespace {

struct RunSpec {
  std::string options, file;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw mdh_runner::Error(path + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Deterministic inputs and tables: floating point in [-1, 1], integers in [0, 16), anything else random bytes.
std::vector<unsigned char> make_input(const mdh_runner::Buffer& buffer, std::mt19937& random) {
  std::vector<unsigned char> bytes(buffer.bytes);
  if (buffer.type == "float") {
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      const float x = uniform(random);
      std::memcpy(&bytes[i], &x, 4);
    }
  } else if (buffer.type == "double") {
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      const double x = uniform(random);
      std::memcpy(&bytes[i], &x, 8);
    }
  } else if (buffer.type == "int" || buffer.type == "uint") {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      const int32_t x = static_cast<int32_t>(random() % 16);
      std::memcpy(&bytes[i], &x, 4);
    }
  } else {
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(random());
  }
  return bytes;
}

// "same", or how the output differs from the expected one. Floating point compares with a relative tolerance
// (1e-5) because two builds may round differently; everything else compares bytewise.
std::string compare(const mdh_runner::Buffer& output, const std::vector<unsigned char>& expected,
                    const std::vector<unsigned char>& got) {
  const bool is_float = output.type == "float", is_double = output.type == "double";
  const size_t element = is_float ? 4 : is_double ? 8 : std::max<size_t>(1, output.element_bytes);
  const size_t count = got.size() / element;
  size_t wrong = 0, first = 0;
  double first_expected = 0, first_got = 0;
  for (size_t i = 0; i < count; ++i) {
    bool same;
    double x = 0, y = 0;
    if (is_float || is_double) {
      if (is_float) {
        float a, b;
        std::memcpy(&a, &expected[i * 4], 4), std::memcpy(&b, &got[i * 4], 4);
        x = a, y = b;
      } else {
        std::memcpy(&x, &expected[i * 8], 8), std::memcpy(&y, &got[i * 8], 8);
      }
      same = (std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= 1e-5 * std::fmax(1.0, std::fabs(x));
    } else {
      same = std::memcmp(&expected[i * element], &got[i * element], element) == 0;
    }
    if (!same && wrong++ == 0) first = i, first_expected = x, first_got = y;
  }
  if (!wrong) return "same";
  std::ostringstream text;
  text << "differs in " << wrong << " of " << count << " elements (first #" << first;
  if (is_float || is_double) text << ": expected " << first_expected << ", got " << first_got;
  text << ")";
  return text.str();
}

cl_device_id pick_device(const std::string& kind) {
  cl_platform_id platforms[16];
  cl_uint platform_count = 0;
  mdh_runner::check(clGetPlatformIDs(16, platforms, &platform_count), "clGetPlatformIDs");
  const cl_device_type type = kind == "gpu"   ? CL_DEVICE_TYPE_GPU
                              : kind == "cpu" ? CL_DEVICE_TYPE_CPU
                                              : CL_DEVICE_TYPE_ALL;
  for (cl_uint p = 0; p < platform_count; ++p) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platforms[p], type, 1, &device, nullptr) == CL_SUCCESS && device) return device;
  }
  throw mdh_runner::Error("no OpenCL device of kind '" + kind + "'");
}

// The driver's program binary (PTX text on NVIDIA), for reading what the optimiser made of a run.
void write_binary(cl_context context, cl_device_id device, const std::string& source, const std::string& options,
                  const std::string& path) {
  const char* text = source.c_str();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &status);
  mdh_runner::check(status, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
    size_t size = 0;
    clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
    std::vector<unsigned char> binary(size);
    unsigned char* data = binary.data();
    clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(binary.data()), binary.size());
  }
  clReleaseProgram(program);
}

int usage() {
  std::fprintf(stderr,
               "usage: compare_builds LAUNCH.json [--device gpu|cpu|any] [--seed N] [--save FILE] [--expect FILE] "
               "[--binaries DIR] "
               "OPTIONS::FILE.cl...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string launch_path, device_kind = "any", save_path, expect_path, binaries_dir;
  unsigned seed = 1;
  std::vector<RunSpec> runs;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--device" && has_value)
      device_kind = argv[++a];
    else if (arg == "--seed" && has_value)
      seed = static_cast<unsigned>(std::stoul(argv[++a]));
    else if (arg == "--save" && has_value)
      save_path = argv[++a];
    else if (arg == "--expect" && has_value)
      expect_path = argv[++a];
    else if (arg == "--binaries" && has_value)
      binaries_dir = argv[++a];
    else if (launch_path.empty())
      launch_path = arg;
    else {
      const size_t split = arg.find("::");
      if (split == std::string::npos) return usage();
      runs.push_back({arg.substr(0, split), arg.substr(split + 2)});
    }
  }
  if (launch_path.empty() || runs.empty()) return usage();

  const nlohmann::json launch = nlohmann::json::parse(read_text(launch_path));
  const mdh_runner::Plan shape = mdh_runner::Plan::from_json("", launch, launch_path);
  if (shape.buffers.empty()) throw mdh_runner::Error(launch_path + ": no buffer list (written by an older mdh)");

  cl_device_id device = pick_device(device_kind);
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  mdh_runner::check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  mdh_runner::check(status, "clCreateCommandQueue");

  std::mt19937 random(seed);
  std::vector<std::vector<unsigned char>> inputs;
  const mdh_runner::Buffer* output = nullptr;
  for (const mdh_runner::Buffer& b : shape.buffers) {
    inputs.push_back(b.kind != "output" ? make_input(b, random) : std::vector<unsigned char>());
    if (b.kind == "output") output = &b;
  }
  if (!output) throw mdh_runner::Error(launch_path + ": no output buffer");

  std::vector<unsigned char> expected;
  if (!expect_path.empty()) {
    const std::string text = read_text(expect_path);
    expected.assign(text.begin(), text.end());
    if (expected.size() != output->bytes) throw mdh_runner::Error(expect_path + ": not the size of the output");
  }

  bool any_differs = false, any_error = false;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::printf("run %zu (%s, %s): ", r + 1, runs[r].options.empty() ? "default options" : runs[r].options.c_str(),
                runs[r].file.c_str());
    try {
      mdh_runner::Plan plan = mdh_runner::Plan::from_json(read_text(runs[r].file), launch, launch_path);
      plan.build_options += " " + runs[r].options;
      if (!binaries_dir.empty())
        write_binary(context, device, plan.source, plan.build_options,
                     binaries_dir + "/run" + std::to_string(r + 1) + ".bin");
      std::map<std::string, cl_mem> buffers;
      std::vector<cl_mem> owned;
      for (size_t b = 0; b < shape.buffers.size(); ++b) {
        // Outputs start as all-ones bytes (NaN for floats) so that elements a run never writes show up.
        std::vector<unsigned char> initial =
            shape.buffers[b].kind != "output" ? inputs[b] : std::vector<unsigned char>(shape.buffers[b].bytes, 0xFF);
        cl_mem mem =
            clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, initial.size(), initial.data(), &status);
        mdh_runner::check(status, "clCreateBuffer " + shape.buffers[b].name);
        owned.push_back(mem);
        buffers[shape.buffers[b].name] = mem;
      }
      std::vector<unsigned char> got(output->bytes);
      {
        mdh_runner::Runner runner(context, device, queue, std::move(plan));
        runner.run(buffers).wait();
        mdh_runner::check(clEnqueueReadBuffer(queue, buffers.at(output->name), CL_TRUE, 0, got.size(), got.data(), 0,
                                              nullptr, nullptr),
                          "reading " + output->name);
      }
      for (cl_mem mem : owned) clReleaseMemObject(mem);
      if (expected.empty()) {
        expected = got;
        std::printf("reference\n");
        if (!save_path.empty())
          std::ofstream(save_path, std::ios::binary).write(reinterpret_cast<const char*>(got.data()), got.size());
        continue;
      }
      const std::string verdict = compare(*output, expected, got);
      any_differs = any_differs || verdict != "same";
      std::printf("%s\n", verdict.c_str());
    } catch (const std::exception& e) {
      std::string message = e.what();
      if (message.size() > 300) message = message.substr(0, 300) + "...";
      for (char& c : message)
        if (c == '\n') c = ' ';
      std::printf("error: %s\n", message.c_str());
      any_error = true;
    }
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return any_differs ? 1 : any_error ? 3 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "compare_builds: %s\n", e.what());
  return 3;
}
