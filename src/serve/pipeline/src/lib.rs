// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Pipelines: a component exporting `wasinn:pipeline/model@0.1.0` (wit/wasinn-pipeline), which
//! `wasinn serve --oip-*` serves as a model of its own. A `Pipeline` is the component linked
//! once (WASI 0.2, wasi:nn and wasinn:nn-ext through the `WitHost` table); a `PipelineInstance`
//! is one store and instance that serves requests one after another, so a guest keeps its
//! graphs between them. Its calls are typed: a request's bytes are lowered with one copy and an
//! answer's lifted with one. The C contract is `src/serve/pipeline/pipeline_host.h`.
use std::ffi::c_void;

use wasmtime::component::{
    ComponentExportIndex, ComponentType, Instance, InstancePre, Lift, Linker, Lower, ResourceTable, TypedFunc,
};
use wasmtime::{format_err, AsContextMut, Result, Store, StoreContext};
use wasmtime_c_api::wasmtime_error_t;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use wasinn_engine::handles::{component_of, engine_of, one_line};
use wasinn_engine::host::*;
use wasinn_engine::long_call::LongCalls;
use wasinn_engine::wit_nn::{self, Cases, NnStore, TensorType};

#[cfg(test)]
mod tests;

const INTERFACE: &str = "wasinn:pipeline/model@0.1.0";

/// A request's input, borrowed from the C++ side for the call: lowered straight into the guest.
#[derive(ComponentType, Lower)]
#[component(record)]
struct TensorIn<'a> {
    name: &'a str,
    dimensions: &'a [u32],
    #[component(name = "tensor-type")]
    tensor_type: TensorType,
    data: &'a [u8],
}

#[derive(ComponentType, Lift)]
#[component(record)]
struct TensorOut {
    name: String,
    dimensions: Vec<u32>,
    #[component(name = "tensor-type")]
    tensor_type: TensorType,
    data: Vec<u8>,
}

#[derive(ComponentType, Lift)]
#[component(record)]
struct TensorSpec {
    name: String,
    #[component(name = "tensor-type")]
    tensor_type: TensorType,
    dimensions: Vec<i64>,
}

#[derive(ComponentType, Lift)]
#[component(record)]
struct Description {
    inputs: Vec<TensorSpec>,
    outputs: Vec<TensorSpec>,
}

#[derive(ComponentType, Lift)]
#[component(variant)]
enum PipelineError {
    #[component(name = "invalid-input")]
    InvalidInput(String),
    #[component(name = "failed")]
    Failed(String),
}

type InferResult = (std::result::Result<Vec<TensorOut>, PipelineError>,);
type DescribeFunc = TypedFunc<(), (Description,)>;
type ModelsFunc = TypedFunc<(), (Vec<String>,)>;

/// pipeline_host.h's types, as C names them, generated from the header by build.rs (rust-bindgen,
/// the engine's c_mirrors.rs): the header is the one definition, and says what each field holds.
/// wit_host.h's types are the engine's, Wasmtime's handles the C API crate's.
mod c {
    #![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
    use wasinn_engine::host::c::*;
    use wasmtime_c_api::{wasm_engine_t, wasmtime_component_t};
    include!(concat!(env!("OUT_DIR"), "/pipeline_host.rs"));
}

/// describe's or infer's answer: `status` 0: ok (`tensors`/`count`, or the description's `specs`);
/// 1: the guest's invalid-input; 2: the guest's failed; 3: the instance trapped or the host failed
/// it (`message`), and is done.
pub use c::wasinn_pipeline_answer as PipelineAnswer;
pub use c::wasinn_pipeline_config as PipelineConfig;
pub use c::wasinn_pipeline_spec as PipelineSpec;
/// One input of infer, or an output of its answer, as the C++ side hands it (its C field `type`
/// is `type_`).
pub use c::wasinn_pipeline_tensor as PipelineTensor;

pub struct Pipeline {
    pre: InstancePre<PipelineState>,
    describe: ComponentExportIndex,
    models: Option<ComponentExportIndex>,
    infer: ComponentExportIndex,
    max_memory_bytes: u64,
    hostcall_fuel: usize,
    inherit_stdio: bool,
    user: *mut c_void,
    guest_free: unsafe extern "C" fn(*mut c_void, Guest),
}

/// The store's data: WASI 0.2 (a pipeline may print or read its own files) and the C++ guest
/// state its wasi:nn calls use, freed with the store.
pub struct PipelineState {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: wasmtime::StoreLimits,
    guest: Guest,
    user: *mut c_void,
    guest_free: unsafe extern "C" fn(*mut c_void, Guest),
}
// The guest state is used by the store's thread only, one call at a time (wit_host.h).
unsafe impl Send for PipelineState {}

impl Drop for PipelineState {
    fn drop(&mut self) {
        unsafe { (self.guest_free)(self.user, self.guest) };
    }
}

impl WasiView for PipelineState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl NnStore for PipelineState {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest {
        cx.data().guest
    }
}

pub struct PipelineInstance {
    store: Store<PipelineState>,
    instance: Instance,
    infer_index: ComponentExportIndex,
    describe: DescribeFunc,
    models: Option<ModelsFunc>,
    dead: bool,
    // What the last answer handed to the C++ side points into, kept until the next call.
    tensors: Vec<TensorOut>,
    views: Vec<PipelineTensor>,
    spec_data: Vec<TensorSpec>,
    specs: Vec<PipelineSpec>,
    model_names: Vec<String>,
    model_views: Vec<WitStr>,
    message: String,
}

impl Pipeline {
    fn new(cfg: &PipelineConfig) -> Result<Pipeline> {
        if cfg.engine.is_null() || cfg.component.is_null() || cfg.nn.is_null() {
            return Err(format_err!(
                "wasinn_pipeline_new: null engine, component or wasi:nn table"
            ));
        }
        let engine = engine_of(cfg.engine);
        let component = component_of(cfg.component);
        let iface = component.get_export_index(None, INTERFACE).ok_or_else(|| {
            format_err!(
                "the component exports no {INTERFACE} (a pipeline exports the model interface of wit/wasinn-pipeline)"
            )
        })?;
        let export = |name: &str| {
            component
                .get_export_index(Some(&iface), name)
                .ok_or_else(|| format_err!("the component's {INTERFACE} has no function {name}"))
        };
        let describe = export("describe")?;
        // Optional: a component built before `models` was added is served without the check.
        let models = component.get_export_index(Some(&iface), "models");
        let infer = export("infer")?;
        let mut linker: Linker<PipelineState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        wit_nn::define(&mut linker, unsafe { *cfg.nn }, LongCalls::InPlace)?;
        let pre = linker.instantiate_pre(&component)?;
        Ok(Pipeline {
            pre,
            describe,
            models,
            infer,
            max_memory_bytes: cfg.max_memory_bytes,
            hostcall_fuel: cfg.hostcall_fuel,
            inherit_stdio: cfg.inherit_stdio,
            user: cfg.user,
            guest_free: slot!(cfg, guest_free),
        })
    }

    fn instantiate(&self, guest: Guest, deadline_ticks: u64) -> Result<PipelineInstance> {
        let mut wasi = WasiCtxBuilder::new();
        if self.inherit_stdio {
            wasi.inherit_stdout().inherit_stderr();
        }
        let mut limits = wasmtime::StoreLimitsBuilder::new();
        if self.max_memory_bytes > 0 {
            limits = limits.memory_size(self.max_memory_bytes as usize);
        }
        let state = PipelineState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            limits: limits.build(),
            guest,
            user: self.user,
            guest_free: self.guest_free,
        };
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|s| &mut s.limits);
        store.epoch_deadline_trap();
        // A start function that spins is stopped like a call (instances are made while serving).
        store.set_epoch_deadline(ticks_or_none(deadline_ticks));
        store.as_context_mut().set_hostcall_fuel(self.hostcall_fuel);
        let instance = self.pre.instantiate(&mut store)?;
        let describe = instance
            .get_typed_func::<(), (Description,)>(&mut store, &self.describe)
            .map_err(|e| format_err!("{INTERFACE}'s describe has another type than wit/wasinn-pipeline's: {e}"))?;
        let models = match &self.models {
            Some(index) => Some(
                instance
                    .get_typed_func::<(), (Vec<String>,)>(&mut store, index)
                    .map_err(|e| {
                        format_err!("{INTERFACE}'s models has another type than wit/wasinn-pipeline's: {e}")
                    })?,
            ),
            None => None,
        };
        // Checked now, so a wrong signature is a load error; infer is typed again per call
        // because its inputs borrow the request's bytes.
        instance
            .get_typed_func::<(&[TensorIn<'_>],), InferResult>(&mut store, &self.infer)
            .map_err(|e| format_err!("{INTERFACE}'s infer has another type than wit/wasinn-pipeline's: {e}"))?;
        Ok(PipelineInstance {
            store,
            instance,
            infer_index: self.infer,
            describe,
            models,
            dead: false,
            tensors: Vec::new(),
            views: Vec::new(),
            spec_data: Vec::new(),
            specs: Vec::new(),
            model_names: Vec::new(),
            model_views: Vec::new(),
            message: String::new(),
        })
    }
}

impl PipelineInstance {
    fn answer(&self, status: i32) -> PipelineAnswer {
        PipelineAnswer {
            status,
            tensors: self.views.as_ptr(),
            count: self.views.len(),
            specs: self.specs.as_ptr(),
            inputs: 0,
            outputs: 0,
            message: WitStr::of(&self.message),
            models: self.model_views.as_ptr(),
            model_count: self.model_views.len(),
        }
    }

    fn failed(&mut self, e: &wasmtime::Error) -> PipelineAnswer {
        self.dead = true;
        self.message = one_line(e);
        self.answer(3)
    }

    fn ended(&mut self) -> PipelineAnswer {
        self.message = "this pipeline instance trapped before".into();
        self.answer(3)
    }

    /// An answer carries its own call's results only, not an earlier call's tensors or message.
    fn begin(&mut self) {
        self.views.clear();
        self.tensors.clear();
        self.specs.clear();
        self.model_views.clear();
        self.model_names.clear();
        self.message.clear();
    }

    fn describe(&mut self, deadline_ticks: u64) -> PipelineAnswer {
        self.begin();
        // pipeline_host.h's "only answers 3" holds for describe too, rather than depending on
        // what Wasmtime makes of a call into an instance that failed.
        if self.dead {
            return self.ended();
        }
        // Its own deadline, not an earlier call's, which may have run out since.
        self.store.set_epoch_deadline(ticks_or_none(deadline_ticks));
        let called = self.describe.call(&mut self.store, ()).map(|r| r.0);
        let d = match called {
            Ok(d) => d,
            Err(e) => return self.failed(&e),
        };
        if let Some(models) = self.models.clone() {
            match models.call(&mut self.store, ()).map(|r| r.0) {
                Ok(names) => self.model_names = names,
                Err(e) => return self.failed(&e),
            }
            self.model_views = self.model_names.iter().map(|n| WitStr::of(n)).collect();
        }
        let (inputs, outputs) = (d.inputs.len(), d.outputs.len());
        self.spec_data = d.inputs.into_iter().chain(d.outputs).collect();
        self.specs = self
            .spec_data
            .iter()
            .map(|s| PipelineSpec {
                name: WitStr::of(&s.name),
                type_: WitStr::of(s.tensor_type.name()),
                dims: s.dimensions.as_ptr(),
                rank: s.dimensions.len(),
            })
            .collect();
        let mut a = self.answer(0);
        a.inputs = inputs;
        a.outputs = outputs;
        a
    }

    fn infer(&mut self, inputs: &[PipelineTensor], deadline_ticks: u64) -> PipelineAnswer {
        self.begin();
        if self.dead {
            return self.ended();
        }
        let mut args = Vec::with_capacity(inputs.len());
        for t in inputs {
            // SAFETY: pipeline_host.h: every pointer is valid for the call.
            let ty_name = unsafe { t.type_.to_string_lossy() };
            let Some(ty) = TensorType::from_name(&ty_name) else {
                self.message = format!("no tensor-type {ty_name}");
                return self.answer(3);
            };
            let slice = |p: *const u8, n: usize| {
                if n == 0 {
                    &[][..]
                } else {
                    unsafe { std::slice::from_raw_parts(p, n) }
                }
            };
            args.push(TensorIn {
                name: std::str::from_utf8(slice(t.name.data.cast(), t.name.len)).unwrap_or(""),
                dimensions: if t.rank == 0 {
                    &[]
                } else {
                    unsafe { std::slice::from_raw_parts(t.dims, t.rank) }
                },
                tensor_type: ty,
                data: slice(t.data.data, t.data.len),
            });
        }
        self.store.set_epoch_deadline(ticks_or_none(deadline_ticks));
        let called = self
            .instance
            .get_typed_func::<(&[TensorIn<'_>],), InferResult>(&mut self.store, &self.infer_index)
            .and_then(|f| f.call(&mut self.store, (&args,)).map(|r| r.0));
        match called {
            Err(e) => self.failed(&e),
            Ok(Err(PipelineError::InvalidInput(m))) => {
                self.message = m;
                self.answer(1)
            }
            Ok(Err(PipelineError::Failed(m))) => {
                self.message = m;
                self.answer(2)
            }
            Ok(Ok(tensors)) => {
                self.tensors = tensors;
                self.views = self
                    .tensors
                    .iter()
                    .map(|t| PipelineTensor {
                        name: WitStr::of(&t.name),
                        dims: t.dimensions.as_ptr(),
                        rank: t.dimensions.len(),
                        type_: WitStr::of(t.tensor_type.name()),
                        data: WitBytes {
                            data: t.data.as_ptr(),
                            len: t.data.len(),
                        },
                    })
                    .collect();
                self.answer(0)
            }
        }
    }
}

/// A store's epoch deadline for the C contract's deadline_ticks (0: none).
fn ticks_or_none(deadline_ticks: u64) -> u64 {
    if deadline_ticks > 0 {
        deadline_ticks
    } else {
        u64::MAX / 4
    }
}

fn c_error(e: wasmtime::Error) -> Option<Box<wasmtime_error_t>> {
    Some(Box::new(wasmtime_error_t::from(e)))
}

/// What boxed_into made, freed (NULL: nothing).
unsafe fn free_boxed<T>(made: *mut T) {
    if !made.is_null() {
        drop(Box::from_raw(made));
    }
}

/// A constructor's answer through the C contract: what it made, boxed into `out`, or its error.
unsafe fn boxed_into<T>(made: wasmtime::Result<T>, out: *mut *mut T) -> Option<Box<wasmtime_error_t>> {
    match made {
        Ok(made) => {
            *out = Box::into_raw(Box::new(made));
            None
        }
        Err(e) => c_error(e),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_new(
    cfg: *const PipelineConfig,
    out: *mut *mut Pipeline,
) -> Option<Box<wasmtime_error_t>> {
    boxed_into(Pipeline::new(&*cfg), out)
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_free(p: *mut Pipeline) {
    free_boxed(p)
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_instantiate(
    p: *const Pipeline,
    guest: Guest,
    deadline_ticks: u64,
    out: *mut *mut PipelineInstance,
) -> Option<Box<wasmtime_error_t>> {
    boxed_into((*p).instantiate(guest, deadline_ticks), out)
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_instance_free(i: *mut PipelineInstance) {
    free_boxed(i)
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_describe(
    i: *mut PipelineInstance,
    deadline_ticks: u64,
    out: *mut PipelineAnswer,
) {
    *out = (*i).describe(deadline_ticks);
}

#[no_mangle]
pub unsafe extern "C" fn wasinn_pipeline_infer(
    i: *mut PipelineInstance,
    inputs: *const PipelineTensor,
    count: usize,
    deadline_ticks: u64,
    out: *mut PipelineAnswer,
) {
    let inputs = if count == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(inputs, count)
    };
    *out = (*i).infer(inputs, deadline_ticks);
}
