#include "pipeline/md_hom_run.h"

#include <cstdlib>
#include <cstring>

#include "codegen/preamble.h"
#include "codegen/reference_kernel.h"

namespace mdh {

std::map<std::string, cl_mem> buffer_handles(const std::map<std::string, DeviceBuffer>& buffers) {
  std::map<std::string, cl_mem> out;
  for (const auto& [name, buffer] : buffers) out[name] = buffer.get();
  return out;
}

std::map<std::string, DeviceBuffer> zeroed_device_buffers(Context& context, const BoundMdh& bound) {
  std::map<std::string, DeviceBuffer> buffers;
  for (size_t b = 0; b < bound.mdh->buffers.size(); ++b) {
    DeviceBuffer buffer = context.create_buffer(bound.byte_size(static_cast<int>(b)));
    buffer.fill(0);
    buffers.emplace(bound.mdh->buffers[b].name, std::move(buffer));
  }
  return buffers;
}

namespace {
void check_shape(const HostBuffer& given, const HostBuffer& expected) {
  if (given.extents != expected.extents || given.element_size != expected.element_size)
    throw UserError("input " + expected.name + ": the data is " + given.declaration() + " but " + expected.name +
                    " is " + expected.declaration() + " at these sizes");
}
}  // namespace

std::map<std::string, std::vector<unsigned char>> checked_param_bytes(
    const BoundMdh& bound, const std::map<std::string, std::string>& params) {
  const Mdh& mdh = *bound.mdh;
  for (const auto& [name, text] : params) {
    if (mdh.find_param(name) < 0) throw UserError("the spec declares no param '" + name + "'");
  }
  std::map<std::string, std::vector<unsigned char>> bytes;
  for (const Param& p : mdh.params) {
    auto it = params.find(p.name);
    if (it == params.end()) throw UserError("param '" + p.name + "' needs a value (--param " + p.name + "=VALUE)");
    bytes[p.name] = param_bytes(mdh, p.name, it->second);
  }
  return bytes;
}

MdHomRun::MdHomRun(Context& context, BoundMdh bound, std::map<std::string, HostBuffer> inputs,
                   const std::map<std::string, std::string>& params, uint64_t seed,
                   const std::map<std::string, HostBufferView>& input_views)
    : context_(context), bound_(std::move(bound)) {
  const Mdh& mdh = *bound_.mdh;
  auto check_name = [&](const std::string& name) {
    int b = mdh.find_buffer(name);
    if (b < 0) throw UserError("the spec declares no buffer '" + name + "'");
    if (mdh.buffers[b].kind == BufferKind::Output) throw UserError("'" + name + "' is the output, not an input");
    if (inputs.count(name) && input_views.count(name)) throw UserError("input " + name + " is given twice");
  };
  for (const auto& [name, buffer] : inputs) check_name(name);
  for (const auto& [name, view] : input_views) check_name(name);
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const Buffer& decl = mdh.buffers[b];
    if (decl.kind == BufferKind::Output) continue;
    HostBuffer expected = make_host_buffer(bound_, static_cast<int>(b));
    if (auto view = input_views.find(decl.name); view != input_views.end()) {
      check_shape(view->second.shape, expected);
      MDH_INTERNAL_ASSERT(view->second.size == expected.bytes.size(), "a view's size disagrees with its extents");
      input_views_.emplace(decl.name, view->second);
      continue;
    }
    auto given = inputs.find(decl.name);
    if (given == inputs.end()) {
      fill_random(expected, mdh, seed);
      inputs_.emplace(decl.name, std::move(expected));
      continue;
    }
    check_shape(given->second, expected);
    inputs_.emplace(decl.name, std::move(given->second));
  }
  param_bytes_ = checked_param_bytes(bound_, params);
  for (const Param& p : mdh.params) param_texts_[p.name] = params.at(p.name);
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const Buffer& decl = mdh.buffers[b];
    DeviceBuffer buffer = context_.create_buffer(bound_.byte_size(static_cast<int>(b)));
    if (auto view = input_views_.find(decl.name); view != input_views_.end())
      buffer.write(view->second.data, view->second.size);
    else if (decl.kind != BufferKind::Output)
      buffer.write(inputs_.at(decl.name).bytes);
    device_buffers_.emplace(decl.name, std::move(buffer));
  }
}

const HostBuffer& MdHomRun::input(const std::string& name) const {
  auto it = inputs_.find(name);
  MDH_INTERNAL_ASSERT(it != inputs_.end(), "input " + name + " is not held by the run (given as a view, or unknown)");
  return it->second;
}

PlanTiming MdHomRun::run(const LaunchPlan& plan, int warmups, int repetitions, KernelEvents events,
                         OutputPoison poison) {
  // NaNs (all bits set) in every element, filled on the device: an evaluation runs this two or three times, and a
  // host copy of the output (4 MiB for GEMM 1024^3) would be allocated and transferred each time.
  if (poison == OutputPoison::before_first_run)
    device_buffers_.at(bound_.mdh->buffers[bound_.output.buffer].name).fill(0xFF);
  return execute_plan(context_, plan, buffer_handles(device_buffers_), param_bytes_, warmups, repetitions, events);
}

SteadyTimer MdHomRun::steady_timer(const LaunchPlan& plan, const SteadyOptions& options) {
  return SteadyTimer(context_, plan, buffer_handles(device_buffers_), param_bytes_, options);
}

HostBuffer MdHomRun::read_output() {
  HostBuffer out = make_host_buffer(bound_, bound_.output.buffer);
  out.bytes = device_buffers_.at(out.name).read();
  return out;
}

void MdHomRun::adopt_reference(HostBuffer output, bool in_double) {
  reference_ = std::move(output);
  reference_double_ = in_double;
  device_check_.reset();
  device_check_made_ = false;
}

std::optional<bool> MdHomRun::output_passes_on_device() {
  if (!device_check_made_) {
    const HostBuffer& reference = reference_output();
    device_check_ = DeviceCheck::make(context_, reference, bound_.mdh->buffers[bound_.output.buffer].type,
                                      bound_.reduction_size(), bound_.precision);
    device_check_made_ = true;
  }
  if (!device_check_) return std::nullopt;
  try {
    return device_check_->passes(device_buffers_.at(bound_.mdh->buffers[bound_.output.buffer].name));
  } catch (const UserError&) {
    // The check itself failed on the device (e.g. the reference's copy could not be placed there at the launch):
    // the host checks from now on; a candidate is not blamed for it.
    device_check_.reset();
    return std::nullopt;
  }
}

bool MdHomRun::reference_in_double() {
  reference_output();
  return reference_double_;
}

const HostBuffer& MdHomRun::reference_output() {
  if (reference_) return *reference_;
  const Mdh& mdh = *bound_.mdh;
  PreambleOptions options;
  options.promote_float_to_double = can_promote_to_double(mdh) && context_.device().fp64;
  LaunchPlan plan = generate_reference_kernel(bound_, options);
  if (!options.promote_float_to_double) {
    run(plan, 0, 1);
    reference_ = read_output();
    return *reference_;
  }
  // The promoted kernel reads and writes double wherever the spec says float: widen float inputs and params,
  // run on buffers of its own, and keep the double output (the check compares float results against it).
  std::map<std::string, DeviceBuffer> buffers;
  HostBuffer output = make_host_buffer(bound_, bound_.output.buffer);
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const Buffer& decl = mdh.buffers[b];
    bool widen = !decl.type.is_struct() && decl.type.scalar == ScalarType::Float;
    if (decl.kind == BufferKind::Output) {
      // Half and bfloat16 results too, unrounded (codegen/reference_kernel.h); their inputs stay as stored.
      if (widen || (!decl.type.is_struct() && is_storage_only(decl.type.scalar))) output = float_to_double(output);
      DeviceBuffer buffer = context_.create_buffer(output.bytes.size());
      buffer.write(std::vector<unsigned char>(output.bytes.size(), 0xFF));
      buffers.emplace(decl.name, std::move(buffer));
      continue;
    }
    HostBuffer held;  // a view's contents: the reference needs them in its own form (widened) anyway
    if (auto view = input_views_.find(decl.name); view != input_views_.end()) {
      held = view->second.shape;
      held.bytes.assign(view->second.data, view->second.data + view->second.size);
    }
    const HostBuffer& host = input_views_.count(decl.name) ? held : inputs_.at(decl.name);
    HostBuffer data = widen ? float_to_double(host) : host;
    DeviceBuffer buffer = context_.create_buffer(data.bytes.size());
    buffer.write(data.bytes);
    buffers.emplace(decl.name, std::move(buffer));
  }
  std::map<std::string, std::vector<unsigned char>> params = param_bytes_;
  for (const Param& p : mdh.params) {
    if (!p.type.is_struct() && p.type.scalar == ScalarType::Float) {
      // strtod, not stod: a value that underflows (1e-400) is a valid tiny number, not an exception.
      double value = std::strtod(param_texts_.at(p.name).c_str(), nullptr);
      std::vector<unsigned char> bytes(sizeof value);
      std::memcpy(bytes.data(), &value, sizeof value);
      params[p.name] = bytes;
    }
  }
  execute_plan(context_, plan, buffer_handles(buffers), params, 0, 1);
  output.bytes = buffers.at(output.name).read();
  reference_ = std::move(output);
  reference_double_ = true;
  return *reference_;
}

}  // namespace mdh
