// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasi:nn@0.2.0-rc-2024-06-25`, `-08-19` and `-10-28` on a component linker: the host traits
//! `bindgen!` generates from wit/ (bindings.rs), implemented once for the three versions over the
//! C table (`WitHost`, wit_host.h), where every decision is made (handles, limits, names, errors).
//! The versions differ in two places: 06-25's error constructor and 10-28's compute, which takes
//! and gives named tensors where the older ones set inputs and get outputs one by one.
use std::mem::{align_of, size_of};
use std::sync::OnceLock;

use wasmtime::component::{HasData, Linker, Resource};
use wasmtime::{format_err, AsContext, Result, StoreContext};
use wasmtime_c_api::{
    wasmtime_component_linker_t, wasmtime_context_get_data, wasmtime_error_t, WasmtimeStoreContextMut,
    WasmtimeStoreData,
};

use crate::bindings::{blocking, off_thread};
use crate::host::*;
use crate::long_call::{in_place, long_fn, off_thread as run_off_thread, LongCalls};

// `wasmtime_component_linker_t` is `#[repr(transparent)]` over this Linker in 48.0.8 and 49.0.5; its field
// is private to the C API's crate, so the cast below stands on that layout. Checked again here
// at every build (a Wasmtime upgrade that changes it fails to compile).
const _: () = assert!(size_of::<wasmtime_component_linker_t>() == size_of::<Linker<WasmtimeStoreData>>());
const _: () = assert!(align_of::<wasmtime_component_linker_t>() == align_of::<Linker<WasmtimeStoreData>>());

/// A store whose data leads to the C++ guest state the table's functions take: the C API's
/// stores (`wasinn run`) and the server's per-request stores (src/serve/http).
pub trait NnStore: Sized + Send + 'static {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest;
    /// For `LongCalls::OffThread` (long_call.rs): whether the next call of a long function (a
    /// load, a compute, a generation step) runs where it is, its store's recent ones having been
    /// short, and how long one took, run there or not (serve/http's store.rs).
    fn long_call_inline(&self, _function: &'static str) -> bool {
        false
    }
    fn long_call_took(&self, _function: &'static str, _took: std::time::Duration, _in_place: bool) {}
}

impl NnStore for WasmtimeStoreData {
    fn nn_guest(cx: StoreContext<'_, Self>) -> Guest {
        wasmtime_context_get_data(cx)
    }
}

/// The resources of one version (V: 0 for 06-25, 1 for 08-19, 2 for 10-28), whose reps are the
/// C++ session's handles; a type per version keeps one version's handles from another's functions.
pub struct Tensor<const V: u8>;
pub struct Graph<const V: u8>;
pub struct Context<const V: u8>;
pub struct NnError<const V: u8>;

/// The generated implementations' data (bindgen!'s `HasData`): nothing; every function takes
/// the store, whose data leads to the guest state, and the table is the process's (`table`).
pub struct Nn;

impl HasData for Nn {
    type Data<'a> = Nn;
}

/// The getter every generated `add_to_linker` takes.
fn nn<T>(_: &mut T) -> Nn {
    Nn
}

/// What a generated function is given of its store.
pub(crate) type Access<'a, T> = wasmtime::component::Access<'a, T, Nn>;

/// A WIT enum whose cases the C++ side knows by name: bindgen!'s enum and its cases' WIT names,
/// both from the WIT files (build.rs generates the list).
pub trait Cases: Sized + Copy + 'static {
    const ALL: &'static [(Self, &'static str)];
    fn name(self) -> &'static str
    where
        Self: PartialEq,
    {
        Self::ALL.iter().find(|(c, _)| *c == self).map_or("", |(_, n)| n)
    }
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }
}

include!(concat!(env!("OUT_DIR"), "/wit_cases.rs"));

/// The newest version's enums, for the crates above (a pipeline's tensor-type) and nn-ext.
pub use blocking::wasi::nn0_2_0_rc_2024_10_28::errors::ErrorCode;
pub use blocking::wasi::nn0_2_0_rc_2024_10_28::graph::{ExecutionTarget, GraphEncoding};
pub use blocking::wasi::nn0_2_0_rc_2024_10_28::tensor::TensorType;

/// The table every component linker of the process is given: C++'s one (wit_nn_imports.cpp's
/// `wit_host_table`, which serving and pipelines get too), kept at the first `define`. The
/// generated functions reach their host through their store's data alone, which cannot carry it.
static TABLE: OnceLock<WitHost> = OnceLock::new();

fn keep_table(host: WitHost) -> Result<()> {
    let kept = TABLE.get_or_init(|| host);
    let bytes = |t: &WitHost| {
        unsafe { std::slice::from_raw_parts(t as *const WitHost as *const u8, size_of::<WitHost>()) }.to_vec()
    };
    if bytes(kept) == bytes(&host) {
        Ok(())
    } else {
        Err(format_err!(
            "wasi:nn: a second, different wit_host.h table; a process has one"
        ))
    }
}

/// The process's table (`define` has kept it before any function can be called).
pub(crate) fn table() -> WitHost {
    *TABLE.get().expect("wasi:nn: a call before its linker was defined")
}

/// The guest state of the store a generated function was given.
pub(crate) fn guest_of<T: NnStore>(access: &Access<'_, T>) -> Guest {
    T::nn_guest(access.as_context())
}

/// One call into the table: OK, an error resource's rep for result::err, or a trap.
pub(crate) fn call(status: WitStatus, out: &WitOut) -> Result<std::result::Result<(), u32>> {
    match status {
        WitStatus::Ok => Ok(Ok(())),
        WitStatus::Err => Ok(Err(out.rep)),
        // SAFETY: the table's promise for TRAP.
        WitStatus::Trap => Err(format_err!("{}", unsafe { out.message.to_string_lossy() })),
        unknown => Err(format_err!("{}", unknown.unknown())),
    }
}

/// 10-28's compute (the slot graph_execution_context_compute_inputs) over (name, tensor rep)
/// inputs: the outputs as (name, tensor rep), an error resource's rep for result::err, or a trap.
/// Any thread, with a share of the guest.
pub(crate) fn compute_named(
    host: &WitHost,
    g: Guest,
    context: u32,
    inputs: &[(String, u32)],
) -> Result<std::result::Result<Vec<(String, u32)>, u32>> {
    let named: Vec<WitNamed> = inputs
        .iter()
        .map(|(n, t)| WitNamed {
            name: WitStr::of(n),
            tensor: *t,
        })
        .collect();
    let mut out = WitOut::default();
    let status = unsafe {
        slot!(host, graph_execution_context_compute_inputs)(g, context, named.as_ptr(), named.len(), &mut out)
    };
    Ok(call(status, &out)?.map(|()| {
        // SAFETY: the table's promise for that slot's OK: wasinn_wit_named[len].
        unsafe { out.slice::<WitNamed>() }
            .iter()
            .map(|o| (unsafe { o.name.to_string_lossy() }, o.tensor))
            .collect()
    }))
}

/// A call that has no error value in WIT: ERR is a bug of the table, reported as a trap.
pub(crate) fn must(status: WitStatus, out: &WitOut, what: &str) -> Result<()> {
    match call(status, out)? {
        Ok(()) => Ok(()),
        Err(_) => Err(format_err!(
            "wasi:nn {what}: the host answered an error where WIT has none"
        )),
    }
}

/// `result<R, error>` of a call that makes the resource `R`.
pub(crate) type Made<R, const V: u8> = std::result::Result<Resource<R>, Resource<NnError<V>>>;

fn made<R: 'static, const V: u8>(status: WitStatus, out: &WitOut) -> Result<Made<R, V>> {
    Ok(call(status, out)?
        .map(|()| Resource::new_own(out.rep))
        .map_err(Resource::new_own))
}

pub(crate) fn unit<const V: u8>(
    status: WitStatus,
    out: &WitOut,
) -> Result<std::result::Result<(), Resource<NnError<V>>>> {
    Ok(call(status, out)?.map_err(Resource::new_own))
}

fn case<C: Cases + PartialEq>(out: &WitOut, what: &str) -> Result<C> {
    // SAFETY: the table hands back a case name as chars.
    let name = std::str::from_utf8(unsafe { out.slice::<u8>() }).unwrap_or("");
    C::from_name(name).ok_or_else(|| format_err!("wasi:nn {what}: '{name}' is not a case of the WIT enum"))
}

/// A case name that may be empty (none).
pub(crate) fn case_opt<C: Cases + PartialEq>(name: &str, what: &str) -> Result<Option<C>> {
    if name.is_empty() {
        return Ok(None);
    }
    C::from_name(name)
        .map(Some)
        .ok_or_else(|| format_err!("{what}: '{name}' is not a case of the WIT enum"))
}

/// A table slot of one handle (and the out-parameter).
pub(crate) type ByRep = unsafe extern "C" fn(Guest, u32, *mut WitOut) -> WitStatus;

/// A table function of one handle: its status and what it handed back.
fn of_rep(f: ByRep, g: Guest, rep: u32) -> (WitStatus, WitOut) {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `g` is the store's guest state.
    let status = unsafe { f(g, rep, &mut out) };
    (status, out)
}

/// A method WIT gives no error value (tensor.ty, error.data...): what the table handed back.
pub(crate) fn answer(f: ByRep, g: Guest, rep: u32, what: &str) -> Result<WitOut> {
    let (status, out) = of_rep(f, g, rep);
    must(status, &out, what)?;
    Ok(out)
}

pub(crate) fn drop_rep(g: Guest, kind: WitResource, rep: u32) -> Result<()> {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `g` is the store's guest state.
    let status = unsafe { slot!(table(), drop)(g, kind, rep, &mut out) };
    must(status, &out, "resource drop")
}

/// The chars the table handed back, copied.
pub(crate) fn chars(out: &WitOut) -> String {
    String::from_utf8_lossy(unsafe { out.slice::<u8>() }).into_owned()
}

// What each function does, once for every version; the macros below bind them to bindgen!'s
// traits of each version.

pub(crate) fn tensor_new<C: Cases + PartialEq>(g: Guest, dims: &[u32], ty: C, data: &[u8]) -> Result<u32> {
    let mut out = WitOut::default();
    // The C++ side copies the bytes into the tensor it keeps.
    let status = unsafe {
        slot!(table(), tensor_new)(
            g,
            dims.as_ptr(),
            dims.len(),
            WitStr::of(ty.name()),
            WitBytes::of(data),
            &mut out,
        )
    };
    must(status, &out, "tensor constructor")?;
    Ok(out.rep)
}

fn tensor_dimensions(g: Guest, t: u32) -> Result<Vec<u32>> {
    let out = answer(slot!(table(), tensor_dimensions), g, t, "tensor.dimensions")?;
    Ok(unsafe { out.slice::<u32>() }.to_vec())
}

fn tensor_data(g: Guest, t: u32) -> Result<Vec<u8>> {
    let out = answer(slot!(table(), tensor_data), g, t, "tensor.data")?;
    Ok(unsafe { out.slice::<u8>() }.to_vec())
}

fn error_new<C: Cases + PartialEq>(g: Guest, code: C, data: &str) -> Result<u32> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(table(), error_new)(g, WitStr::of(code.name()), WitStr::of(data), &mut out) };
    must(status, &out, "error constructor")?;
    Ok(out.rep)
}

/// load: its builders, encoding and target.
type Builders<E, G> = (Vec<Vec<u8>>, E, G);

fn load<const V: u8, E: Cases + PartialEq, G: Cases + PartialEq>(
    host: WitHost,
    g: Guest,
    (builders, encoding, target): Builders<E, G>,
) -> Result<Made<Graph<V>, V>> {
    let spans: Vec<WitBytes> = builders.iter().map(|b| WitBytes::of(b)).collect();
    load_spans(host, g, &spans, encoding, target)
}

/// load over its builders' bytes, wherever they are (bytes_in_place.rs reads them in guest memory).
pub(crate) fn load_spans<const V: u8, E: Cases + PartialEq, G: Cases + PartialEq>(
    host: WitHost,
    g: Guest,
    spans: &[WitBytes],
    encoding: E,
    target: G,
) -> Result<Made<Graph<V>, V>> {
    let mut out = WitOut::default();
    let status = unsafe {
        slot!(host, graph_load)(
            g,
            spans.as_ptr(),
            spans.len(),
            WitStr::of(encoding.name()),
            WitStr::of(target.name()),
            &mut out,
        )
    };
    made(status, &out)
}

fn load_by_name<const V: u8>(host: WitHost, g: Guest, (name,): (String,)) -> Result<Made<Graph<V>, V>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, graph_load_by_name)(g, WitStr::of(&name), &mut out) };
    made(status, &out)
}

fn compute<const V: u8>(
    host: WitHost,
    g: Guest,
    (context,): (u32,),
) -> Result<std::result::Result<(), Resource<NnError<V>>>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, graph_execution_context_compute)(g, context, &mut out) };
    unit(status, &out)
}

type NamedTensors<const V: u8> = Vec<(String, Resource<Tensor<V>>)>;

fn compute_tensors<const V: u8>(
    host: WitHost,
    g: Guest,
    (context, inputs): (u32, NamedTensors<V>),
) -> Result<std::result::Result<NamedTensors<V>, Resource<NnError<V>>>> {
    let inputs: Vec<(String, u32)> = inputs.into_iter().map(|(n, t)| (n, t.rep())).collect();
    let outputs = compute_named(&host, g, context, &inputs)?;
    Ok(outputs
        .map(|outs| outs.into_iter().map(|(n, t)| (n, Resource::new_own(t))).collect())
        .map_err(Resource::new_own))
}

/// tensor and errors of one version (in `blocking` only: `off_thread` has them from there).
macro_rules! tensor_and_errors {
    ($version:tt, $($m:ident)::+ $(, $error_constructor:ident)?) => {
        const _: () = {
            use $($m)::+ as m;
            use m::errors::{Error, ErrorCode};
            use m::tensor::{Tensor, TensorType};
            wit_enum_cases!("wasi:nn", $version, "tensor", "tensor-type", TensorType);
            wit_enum_cases!("wasi:nn", $version, "errors", "error-code", ErrorCode);
            impl m::tensor::HostTensor for Nn {}
            impl m::tensor::Host for Nn {}
            impl m::errors::HostError for Nn {}
            impl m::errors::Host for Nn {}
            impl<T: NnStore> m::tensor::HostTensorWithStore<T> for Nn {
                fn drop(host: Access<'_, T>, t: Resource<Tensor>) -> Result<()> {
                    drop_rep(guest_of(&host), WitResource::Tensor, t.rep())
                }
                fn new(host: Access<'_, T>, dims: Vec<u32>, ty: TensorType, data: Vec<u8>) -> Result<Resource<Tensor>> {
                    tensor_new(guest_of(&host), &dims, ty, &data).map(Resource::new_own)
                }
                fn dimensions(host: Access<'_, T>, t: Resource<Tensor>) -> Result<Vec<u32>> {
                    tensor_dimensions(guest_of(&host), t.rep())
                }
                fn ty(host: Access<'_, T>, t: Resource<Tensor>) -> Result<TensorType> {
                    case(&answer(slot!(table(), tensor_ty), guest_of(&host), t.rep(), "tensor.ty")?, "tensor.ty")
                }
                fn data(host: Access<'_, T>, t: Resource<Tensor>) -> Result<Vec<u8>> {
                    tensor_data(guest_of(&host), t.rep())
                }
            }
            impl<T: NnStore> m::errors::HostErrorWithStore<T> for Nn {
                fn drop(host: Access<'_, T>, e: Resource<Error>) -> Result<()> {
                    drop_rep(guest_of(&host), WitResource::Error, e.rep())
                }
                $(
                fn $error_constructor(host: Access<'_, T>, code: ErrorCode, data: String) -> Result<Resource<Error>> {
                    error_new(guest_of(&host), code, &data).map(Resource::new_own)
                }
                )?
                fn code(host: Access<'_, T>, e: Resource<Error>) -> Result<ErrorCode> {
                    case(&answer(slot!(table(), error_code), guest_of(&host), e.rep(), "error.code")?, "error.code")
                }
                fn data(host: Access<'_, T>, e: Resource<Error>) -> Result<String> {
                    Ok(chars(&answer(slot!(table(), error_data), guest_of(&host), e.rep(), "error.data")?))
                }
            }
        };
    };
}

/// graph and inference of version `$v` in the expansion `$mode`; `staged`: set-input, compute and
/// get-output (06-25, 08-19), `named`: compute on named tensors (10-28).
macro_rules! graph_and_inference {
    ($mode:ident, $v:literal, $version:tt, $($m:ident)::+, $inference:ident) => {
        const _: () = {
            use $($m)::+ as m;
            use m::errors::Error;
            use m::graph::{ExecutionTarget, Graph, GraphEncoding};
            use m::inference::GraphExecutionContext;
            wit_enum_cases!("wasi:nn", $version, "graph", "graph-encoding", GraphEncoding);
            wit_enum_cases!("wasi:nn", $version, "graph", "execution-target", ExecutionTarget);
            impl m::graph::HostGraph for Nn {}
            impl m::graph::Host for Nn {}
            impl m::inference::HostGraphExecutionContext for Nn {}
            impl m::inference::Host for Nn {}
            impl<T: NnStore> m::graph::HostGraphWithStore<T> for Nn {
                fn drop(host: Access<'_, T>, g: Resource<Graph>) -> Result<()> {
                    drop_rep(guest_of(&host), WitResource::Graph, g.rep())
                }
                fn init_execution_context(
                    host: Access<'_, T>,
                    g: Resource<Graph>,
                ) -> Result<std::result::Result<Resource<GraphExecutionContext>, Resource<Error>>> {
                    let (status, out) = of_rep(slot!(table(), graph_init_execution_context), guest_of(&host), g.rep());
                    made(status, &out)
                }
            }
            impl<T: NnStore> m::graph::HostWithStore<T> for Nn {
                long_fn!($mode, "load",
                    fn load(host, builders: Vec<Vec<u8>>, encoding: GraphEncoding, target: ExecutionTarget)
                        -> std::result::Result<Resource<Graph>, Resource<Error>>,
                    None, (builders, encoding, target), load::<$v, GraphEncoding, ExecutionTarget>);
                long_fn!($mode, "load-by-name",
                    fn load_by_name(host, name: String) -> std::result::Result<Resource<Graph>, Resource<Error>>,
                    None, (name), load_by_name::<$v>);
            }
            graph_and_inference!(@$inference $mode, $v, m);
        };
    };
    (@staged $mode:ident, $v:literal, $m:ident) => {
        impl<T: NnStore> $m::inference::HostGraphExecutionContextWithStore<T> for Nn {
            fn drop(host: Access<'_, T>, c: Resource<$m::inference::GraphExecutionContext>) -> Result<()> {
                drop_rep(guest_of(&host), WitResource::Context, c.rep())
            }
            fn set_input(
                host: Access<'_, T>,
                c: Resource<$m::inference::GraphExecutionContext>,
                name: String,
                t: Resource<$m::tensor::Tensor>,
            ) -> Result<std::result::Result<(), Resource<$m::errors::Error>>> {
                let mut out = WitOut::default();
                let set_input = slot!(table(), graph_execution_context_set_input);
                let status = unsafe { set_input(guest_of(&host), c.rep(), WitStr::of(&name), t.rep(), &mut out) };
                unit(status, &out)
            }
            long_fn!($mode, "[method]graph-execution-context.compute",
                fn compute(host, c: Resource<$m::inference::GraphExecutionContext>)
                    -> std::result::Result<(), Resource<$m::errors::Error>>,
                Some(c.rep()), (c.rep()), compute::<$v>);
            fn get_output(
                host: Access<'_, T>,
                c: Resource<$m::inference::GraphExecutionContext>,
                name: String,
            ) -> Result<std::result::Result<Resource<$m::tensor::Tensor>, Resource<$m::errors::Error>>> {
                let mut out = WitOut::default();
                let get_output = slot!(table(), graph_execution_context_get_output);
                let status = unsafe { get_output(guest_of(&host), c.rep(), WitStr::of(&name), &mut out) };
                made(status, &out)
            }
        }
    };
    (@named $mode:ident, $v:literal, $m:ident) => {
        impl<T: NnStore> $m::inference::HostGraphExecutionContextWithStore<T> for Nn {
            fn drop(host: Access<'_, T>, c: Resource<$m::inference::GraphExecutionContext>) -> Result<()> {
                drop_rep(guest_of(&host), WitResource::Context, c.rep())
            }
            long_fn!($mode, "[method]graph-execution-context.compute",
                fn compute(host, c: Resource<$m::inference::GraphExecutionContext>, inputs: NamedTensors<$v>)
                    -> std::result::Result<NamedTensors<$v>, Resource<$m::errors::Error>>,
                Some(c.rep()), (c.rep(), inputs), compute_tensors::<$v>);
        }
    };
}

tensor_and_errors!("0.2.0-rc-2024-06-25", blocking::wasi::nn0_2_0_rc_2024_06_25, new);
tensor_and_errors!("0.2.0-rc-2024-08-19", blocking::wasi::nn0_2_0_rc_2024_08_19);
tensor_and_errors!("0.2.0-rc-2024-10-28", blocking::wasi::nn0_2_0_rc_2024_10_28);

/// graph and inference of the three versions in one expansion.
macro_rules! versions {
    ($mode:ident) => {
        graph_and_inference! { $mode, 0, "0.2.0-rc-2024-06-25", $mode::wasi::nn0_2_0_rc_2024_06_25, staged }
        graph_and_inference! { $mode, 1, "0.2.0-rc-2024-08-19", $mode::wasi::nn0_2_0_rc_2024_08_19, staged }
        graph_and_inference! { $mode, 2, "0.2.0-rc-2024-10-28", $mode::wasi::nn0_2_0_rc_2024_10_28, named }
    };
}

versions!(blocking);
versions!(off_thread);

/// Adds every served wasi:nn version, wasinn's extensions and Spin's llm, their long calls as `mode`
/// says.
pub fn define<T: NnStore>(linker: &mut Linker<T>, host: WitHost, mode: LongCalls) -> Result<()> {
    keep_table(host)?;
    match mode {
        LongCalls::InPlace => blocking::Imports::add_to_linker::<T, Nn>(linker, nn)?,
        LongCalls::OffThread => off_thread::Imports::add_to_linker::<T, Nn>(linker, nn)?,
    }
    crate::bytes_in_place::define(linker, mode)
}

/// Adds every served wasi:nn version to a component linker made by the C API (wit_host.h).
///
/// # Safety
/// `linker` is a live `wasmtime_component_linker_t`, `host` a valid table (copied here).
#[no_mangle]
pub unsafe extern "C" fn wasinn_wit_define(
    linker: *mut wasmtime_component_linker_t,
    host: *const WitHost,
) -> Option<Box<wasmtime_error_t>> {
    if linker.is_null() || host.is_null() {
        return Some(Box::new(wasmtime_error_t::from(format_err!(
            "wasinn_wit_define: null argument"
        ))));
    }
    let linker = &mut *(linker as *mut Linker<WasmtimeStoreData>);
    define(linker, *host, LongCalls::InPlace)
        .err()
        .map(|e| Box::new(wasmtime_error_t::from(e)))
}

/// Sets how many bytes one host call may lift out of the guest (wit_host.h).
#[no_mangle]
pub extern "C" fn wasinn_store_set_hostcall_fuel(mut cx: WasmtimeStoreContextMut<'_>, bytes: usize) {
    cx.set_hostcall_fuel(bytes);
}

/// Bounds the entries of the store's resource tables, as Wasmtime's `-S max-resources` (wit_host.h).
/// Only after wasmtime_context_set_wasi: the WASI context holds the table (0.2's and p1's).
#[no_mangle]
pub extern "C" fn wasinn_store_set_max_resources(mut cx: WasmtimeStoreContextMut<'_>, max: usize) {
    use wasmtime_wasi::WasiView;
    cx.data_mut().ctx().table.set_max_capacity(max);
    // The table of a 0.3 component's tasks, streams, futures and waitables.
    if let Some(table) = cx.concurrent_resource_table() {
        table.set_max_capacity(max);
    }
}
