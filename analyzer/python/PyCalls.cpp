// Calls of known APIs and of methods on known tensors, streams and events.
#include <algorithm>

#include "python/PyLowering.h"

namespace sl::py {

using model::CopyDir;
using model::EventKind;
using model::StreamKind;
using model::StreamRef;
using model::SyncKind;
using model::Tri;

namespace {
Value make(Kind k, StreamRef s = {}) {
  Value v;
  v.fact.kind = k;
  v.fact.stream = std::move(s);
  v.fact.local = true;
  return v;
}
bool isCuda(const Value& v) { return v.fact.kind == Kind::CudaTensor; }
}  // namespace

Value Lowerer::callApi(Api api, const Value& callee, CallArgs& a) {
  const std::string& name = callee.canonical;
  TSNode at = a.call;
  auto anyCuda = [&] {
    return std::any_of(a.pos.begin(), a.pos.end(), [](const Arg& x) { return isCuda(x.value); });
  };
  auto argValues = [&] {
    std::vector<Value> v;
    for (const auto& x : a.pos) v.push_back(x.value);
    return v;
  };
  switch (api) {
    case Api::StreamCreate:
      // torch.cuda.Stream() hands out one of a fixed pool of streams (no driver call).
      emit(EventKind::StreamCreate, at, name).pooled = true;
      return make(Kind::Stream, StreamRef{StreamKind::Side, ""});
    case Api::CurrentStream:  // inside `with stream(s)`, current_stream() *is* s
      return make(Kind::Stream, model::effectiveStream(fn_, scope_));
    case Api::DefaultStream: return make(Kind::Stream, StreamRef{StreamKind::Default, ""});
    case Api::StreamContext: {
      const Arg* s = a.at(0, "stream");
      if (!s || text(s->node, mc_.src) == "None") return make(Kind::StreamContext, StreamRef::current());
      StreamRef ref = s->value.fact.kind == Kind::Stream
                          ? s->value.fact.stream
                          : StreamRef{StreamKind::Unknown, std::string(text(s->node, mc_.src))};
      if (ref.isSide() && ref.name.empty()) ref.name = std::string(text(s->node, mc_.src));
      return make(Kind::StreamContext, ref);
    }
    case Api::EventCreate:
      emit(EventKind::EventCreate, at, name);
      return make(Kind::Event);
    case Api::DeviceSync: emit(EventKind::HostSync, at, name).sync = SyncKind::Device; return {};
    case Api::AllocatorSync: emit(EventKind::HostSync, at, name).sync = SyncKind::Allocation; return {};
    case Api::Clock: emit(EventKind::Clock, at, name); return {};
    case Api::Backward: {
      auto& e = emit(EventKind::Backward, at, name);
      for (const auto& x : a.pos)
        if (isCuda(x.value) && !x.value.path.empty()) e.reads.push_back(x.value.path);
      return {};
    }
    case Api::Factory: {
      Kind dev = deviceKind(a.keyword("device"));
      if (dev == Kind::CudaDevice) {
        emit(EventKind::Alloc, at, name);
        return make(Kind::CudaTensor);
      }
      if (dev == Kind::HostDevice) {
        Value v = make(Kind::HostTensor);
        v.fact.pinned = truthy(a.keyword("pin_memory"));
        return v;
      }
      return {};
    }
    case Api::FactoryLike: {
      const Arg* dev = a.keyword("device");
      Kind k = dev ? (deviceKind(dev) == Kind::CudaDevice ? Kind::CudaTensor : Kind::Unknown)
                   : (a.pos.empty() ? Kind::Unknown : a.pos[0].value.fact.kind);
      if (k == Kind::CudaTensor) {
        emit(EventKind::Alloc, at, name);
        return make(Kind::CudaTensor);
      }
      return k == Kind::HostTensor ? make(Kind::HostTensor) : Value{};
    }
    case Api::HostTensor: return make(Kind::HostTensor);
    case Api::SyncingOp:
      if (!anyCuda()) return {};
      emitWork(at, argValues(), name);
      emit(EventKind::HostSync, at, name).sync = SyncKind::ValueRead;
      return make(Kind::CudaTensor);
    case Api::Collective: {
      if (!anyCuda()) return {};
      auto& e = emitWork(at, argValues(), name);
      e.writes = e.reads;
      return {};
    }
    case Api::TensorOp:
      if (anyCuda()) {
        emitWork(at, argValues(), name);
        return make(Kind::CudaTensor);
      }
      if (std::any_of(a.pos.begin(), a.pos.end(), [](const Arg& x) { return x.value.fact.kind == Kind::HostTensor; }))
        return make(Kind::HostTensor);
      return {};
    case Api::CudaDevice: {
      if (name != "torch.device") return make(Kind::CudaDevice);
      const Arg* d = a.at(0, "type");
      Kind k = d ? deviceKind(d) : Kind::Unknown;
      return k == Kind::Unknown ? Value{} : make(k);
    }
    case Api::None: return {};
  }
  return {};
}

Value Lowerer::callMethod(const Value& in, std::string_view method, CallArgs& a) {
  TSNode at = a.call;
  Value recv = in;
  // `x.wait_stream(...)`/`x.wait_event(...)` name stream APIs whatever `x` is: a missed wait
  // would make the ordering rules cry wolf.
  if (recv.fact.kind == Kind::Unknown && !recv.path.empty() &&
      (method == "wait_stream" || method == "wait_event"))
    recv.fact = Fact{Kind::Stream, StreamRef{StreamKind::Unknown, recv.path}};
  switch (recv.fact.kind) {
    case Kind::CudaTensor: return callTensorMethod(recv, method, a);
    case Kind::HostTensor: return callHostTensorMethod(recv, method, a);
    case Kind::Stream: {
      auto& s = recv.fact.stream;
      switch (lookupStreamMethod(method)) {
        case StreamMethod::Synchronize: {
          auto& e = emit(EventKind::HostSync, at, "Stream.synchronize");
          e.sync = SyncKind::Stream, e.stream = s, e.streamExplicit = true;
          return {};
        }
        case StreamMethod::WaitStream: {
          const Arg* o = a.at(0, "stream");
          auto& e = emit(EventKind::Wait, at, "Stream.wait_stream");
          e.stream = s, e.streamExplicit = true;
          e.other = o && o->value.fact.kind == Kind::Stream
                        ? o->value.fact.stream
                        : StreamRef{StreamKind::Unknown, o ? std::string(text(o->node, mc_.src)) : ""};
          return {};
        }
        case StreamMethod::WaitEvent: {
          const Arg* ev = a.at(0, "event");
          auto& e = emit(EventKind::Wait, at, "Stream.wait_event");
          e.stream = s, e.streamExplicit = true;
          e.value = ev ? ev->value.path : "";
          if (e.value.empty()) e.value = "<event>";
          return {};
        }
        case StreamMethod::RecordEvent: {
          auto& e = emit(EventKind::EventRecord, at, "Stream.record_event");
          e.stream = s, e.streamExplicit = true;
          const Arg* ev = a.at(0, "event");
          e.value = ev ? ev->value.path : "";
          return make(Kind::Event);
        }
        case StreamMethod::None: return {};
      }
      return {};
    }
    case Kind::Event: {
      const Arg* st = a.at(0, "stream");
      bool named = st && st->value.fact.kind == Kind::Stream;
      switch (lookupEventMethod(method)) {
        case EventMethod::Record: {
          auto& e = emit(EventKind::EventRecord, at, "Event.record");
          if (named) e.stream = st->value.fact.stream, e.streamExplicit = true;
          e.value = recv.path;
          return {};
        }
        case EventMethod::Wait: {
          auto& e = emit(EventKind::Wait, at, "Event.wait");
          if (named) e.stream = st->value.fact.stream, e.streamExplicit = true;
          e.value = recv.path.empty() ? "<event>" : recv.path;
          return {};
        }
        case EventMethod::Synchronize: {
          auto& e = emit(EventKind::HostSync, at, "Event.synchronize");
          e.sync = SyncKind::Event;
          e.value = recv.path;
          return {};
        }
        case EventMethod::None: return {};
      }
      return {};
    }
    default: return {};
  }
}

Value Lowerer::copyToDevice(const Value& src, CallArgs& a, const char* api) {
  emit(EventKind::Alloc, a.call, api);
  auto& c = emit(EventKind::Copy, a.call, api);
  c.dir = CopyDir::HostToDevice;
  c.nonBlocking = truthy(a.keyword("non_blocking"));
  c.srcPinned = src.fact.pinned ? Tri::Yes : Tri::No;
  c.srcTemporary = src.path.empty();
  c.srcStreamTracked = src.fact.pinned;  // torch's pinned memory: the caching host allocator
  if (!src.path.empty()) c.reads.push_back(src.path);
  return make(Kind::CudaTensor);
}

Value Lowerer::callHostTensorMethod(const Value& recv, std::string_view method, CallArgs& a) {
  Method m = lookupTensorMethod(method);
  switch (m) {
    case Method::Cuda: return copyToDevice(recv, a, "Tensor.cuda");
    case Method::To: {
      const Arg* d = a.at(0, "device");
      if (d && deviceKind(d) == Kind::CudaDevice) return copyToDevice(recv, a, "Tensor.to");
      return d && deviceKind(d) == Kind::Unknown ? Value{} : recv;
    }
    case Method::PinMemory: {
      Value v = make(Kind::HostTensor);
      v.fact.pinned = true;
      return v;
    }
    case Method::InPlace:
      if (!recv.path.empty()) emit(EventKind::HostWrite, a.call, "Tensor." + std::string(method)).value = recv.path;
      return recv;
    case Method::CopyInto: {
      const Arg* src = a.at(0, "src");
      if (src && !isCuda(src->value) && !recv.path.empty())
        emit(EventKind::HostWrite, a.call, "Tensor.copy_").value = recv.path;
      if (src && isCuda(src->value)) {
        bool nb = truthy(a.keyword("non_blocking"));
        if (!nb) {
          auto& s = emit(EventKind::HostSync, a.call, "Tensor.copy_");
          s.sync = SyncKind::BlockingCopy;
          s.reads.push_back(src->value.path);
          return recv;
        }
        auto& c = emit(EventKind::Copy, a.call, "Tensor.copy_");
        c.dir = CopyDir::DeviceToHost, c.nonBlocking = true, c.value = recv.path;
        if (!src->value.path.empty()) c.reads.push_back(src->value.path);
        if (!recv.path.empty()) env_[recv.path].pendingCopy = true;
      }
      return recv;
    }
    case Method::ValueRead:
      readValue(a.call, recv, SyncKind::ValueRead, "Tensor.numpy");
      return {};
    // A host tensor's .numpy() is a view of the same memory: nothing is read yet (a
    // pending copy stays pending for whoever reads the array).
    case Method::Numpy: return recv;
    case Method::Metadata: return {};
    default: {
      if (recv.fact.pendingCopy) emit(EventKind::HostRead, a.call, std::string(method)).value = recv.path;
      return make(Kind::HostTensor);
    }
  }
}

Value Lowerer::callTensorMethod(const Value& recv, std::string_view method, CallArgs& a) {
  TSNode at = a.call;
  std::string api = "Tensor." + std::string(method);
  std::vector<Value> operands{recv};
  for (const auto& x : a.pos) operands.push_back(x.value);
  switch (lookupTensorMethod(method)) {
    case Method::Metadata: return {};
    case Method::ValueRead:
    case Method::Numpy: readValue(at, recv, SyncKind::ValueRead, api.c_str()); return {};
    case Method::ToCpu: {
      auto& e = emit(EventKind::HostSync, at, api);
      e.sync = SyncKind::BlockingCopy;
      if (!recv.path.empty()) e.reads.push_back(recv.path);
      return make(Kind::HostTensor);
    }
    case Method::To: {
      const Arg* d = a.at(0, "device");
      Kind k = d ? deviceKind(d) : Kind::Unknown;
      if (d && k == Kind::HostDevice) {
        if (!truthy(a.keyword("non_blocking"))) {
          auto& e = emit(EventKind::HostSync, at, api);
          e.sync = SyncKind::BlockingCopy;
          if (!recv.path.empty()) e.reads.push_back(recv.path);
          return make(Kind::HostTensor);
        }
        // torch allocates a pinned destination for a non_blocking device-to-host copy.
        auto& c = emit(EventKind::Copy, at, api);
        c.dir = CopyDir::DeviceToHost, c.nonBlocking = true;
        if (!recv.path.empty()) c.reads.push_back(recv.path);
        Value v = make(Kind::HostTensor);
        v.fact.pinned = v.fact.pendingCopy = true;
        return v;
      }
      if (k == Kind::CudaDevice) return recv;  // already on the GPU
      emitWork(at, operands, api);               // dtype cast or unknown target
      return make(Kind::CudaTensor);
    }
    case Method::Cuda: return recv;
    case Method::CopyInto: {
      const Arg* src = a.at(0, "src");
      if (src && src->value.fact.kind == Kind::HostTensor) {
        auto& c = emit(EventKind::Copy, at, api);
        c.dir = CopyDir::HostToDevice, c.value = recv.path;
        c.nonBlocking = truthy(a.keyword("non_blocking"));
        c.srcPinned = src->value.fact.pinned ? Tri::Yes : Tri::No;
        c.srcTemporary = src->value.path.empty();
        c.srcStreamTracked = src->value.fact.pinned;
        if (!src->value.path.empty()) c.reads.push_back(src->value.path);
        c.writes.push_back(recv.path);
        return recv;
      }
      auto& e = emitWork(at, operands, api);
      if (!recv.path.empty()) e.writes.push_back(recv.path);
      return recv;
    }
    case Method::RecordStream: {
      const Arg* s = a.at(0, "stream");
      auto& e = emit(EventKind::RecordStream, at, api);
      e.value = recv.path;
      e.other = s && s->value.fact.kind == Kind::Stream
                    ? s->value.fact.stream
                    : StreamRef{StreamKind::Unknown, s ? std::string(text(s->node, mc_.src)) : ""};
      return {};
    }
    case Method::Backward: {
      auto& e = emit(EventKind::Backward, at, api);
      if (!recv.path.empty()) e.reads.push_back(recv.path);
      return {};
    }
    case Method::SyncingOp:
      emitWork(at, operands, api);
      emit(EventKind::HostSync, at, api).sync = SyncKind::ValueRead;
      return make(Kind::CudaTensor);
    case Method::InPlace: {
      auto& e = emitWork(at, operands, api);
      if (!recv.path.empty()) e.writes.push_back(recv.path);
      return recv;
    }
    case Method::PinMemory:
    case Method::Other:
      emitWork(at, operands, api);
      return make(Kind::CudaTensor);
  }
  return {};
}

}  // namespace sl::py
