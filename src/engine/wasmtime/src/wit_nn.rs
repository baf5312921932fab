// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasi:nn@0.2.0-rc-2024-06-25`, `-08-19` and `-10-28` as typed host functions, added to a
//! component linker that Wasmtime's C API made. Typed, a `list<u8>` argument is read where it
//! lies in guest memory and a returned one is lowered with one memcpy; the C API's values cost
//! one value per byte and cap a call at Wasmtime's hostcall fuel. Every decision (handles,
//! limits, names, errors) is the C++ side's, reached through the `WitHost` table.
use std::mem::{align_of, size_of};

use wasmtime::component::{ComponentType, Lift, Linker, LinkerInstance, Lower, Resource, ResourceType, WasmList};
use wasmtime::{format_err, AsContext, AsContextMut, Result, StoreContext, StoreContextMut};
use wasmtime_c_api::{
    wasmtime_component_linker_t, wasmtime_context_get_data, wasmtime_error_t, WasmtimeStoreContextMut,
    WasmtimeStoreData,
};

use crate::host::*;
use crate::long_call::{define_long, LongCalls};

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

pub(crate) type Cx<'a, T> = StoreContextMut<'a, T>;

/// The versions served, oldest first; a resource type per version keeps one version's handles
/// from being passed to another's functions.
const VERSIONS: [&str; 3] = ["0.2.0-rc-2024-06-25", "0.2.0-rc-2024-08-19", "0.2.0-rc-2024-10-28"];
const V_06_25: u8 = 0;
pub(crate) const V_10_28: u8 = 2;

pub struct Tensor<const V: u8>;
pub struct Graph<const V: u8>;
pub struct Context<const V: u8>;
pub struct NnError<const V: u8>;

/// A WIT enum whose cases the C++ side knows by name.
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

/// A WIT enum: the Rust type Wasmtime lifts and lowers (its cases checked against the
/// component's type at instantiation) and its `Cases`, from one list of names.
macro_rules! wit_enum {
    ($ty:ident { $($variant:ident = $name:tt),* $(,)? }) => {
        #[derive(ComponentType, Lift, Lower, Clone, Copy, PartialEq, Debug)]
        #[component(enum)]
        #[repr(u8)]
        pub enum $ty {
            $(#[component(name = $name)] $variant,)*
        }
        impl Cases for $ty {
            const ALL: &'static [(Self, &'static str)] = &[$((Self::$variant, $name),)*];
        }
    };
}

wit_enum!(TensorType { Fp16 = "FP16", Fp32 = "FP32", Fp64 = "FP64", Bf16 = "BF16", U8 = "U8", I32 = "I32", I64 = "I64" });
wit_enum!(GraphEncoding {
    Openvino = "openvino",
    Onnx = "onnx",
    Tensorflow = "tensorflow",
    Pytorch = "pytorch",
    Tensorflowlite = "tensorflowlite",
    Ggml = "ggml",
    Autodetect = "autodetect",
});
wit_enum!(ExecutionTarget { Cpu = "cpu", Gpu = "gpu", Tpu = "tpu" });
wit_enum!(ErrorCode {
    InvalidArgument = "invalid-argument",
    InvalidEncoding = "invalid-encoding",
    Timeout = "timeout",
    RuntimeError = "runtime-error",
    UnsupportedOperation = "unsupported-operation",
    TooLarge = "too-large",
    NotFound = "not-found",
    Security = "security",
    Unknown = "unknown",
});

pub(crate) fn guest<T: NnStore>(cx: &Cx<'_, T>) -> Guest {
    T::nn_guest(cx.as_context())
}

/// One call into the table: OK, an error resource's rep for result::err, or a trap.
pub(crate) fn call(status: WitStatus, out: &WitOut) -> Result<std::result::Result<(), u32>> {
    match status {
        WitStatus::Ok => Ok(Ok(())),
        WitStatus::Err => Ok(Err(out.rep)),
        // SAFETY: the table's promise for TRAP.
        WitStatus::Trap => Err(format_err!("{}", unsafe { out.message.to_string_lossy() })),
    }
}

/// The table's compute_named over (name, tensor rep) inputs: the outputs as (name, tensor rep), an
/// error resource's rep for result::err, or a trap. Any thread, with a share of the guest.
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
    let status = unsafe { (host.compute_named)(g, context, named.as_ptr(), named.len(), &mut out) };
    Ok(call(status, &out)?.map(|()| {
        // SAFETY: the table's promise for compute_named's OK: wasinn_wit_named[len].
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

/// `result<R, error>` from a call that makes the resource `R`.
fn made<R: 'static, const V: u8>(
    status: WitStatus,
    out: &WitOut,
) -> Result<std::result::Result<Resource<R>, Resource<NnError<V>>>> {
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

type ByRep = unsafe extern "C" fn(Guest, u32, *mut WitOut) -> WitStatus;

/// A table function of one handle: its status and what it handed back.
pub(crate) fn by_rep<T: NnStore>(f: ByRep, cx: &Cx<'_, T>, rep: u32) -> (WitStatus, WitOut) {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `guest` is this store's data.
    let status = unsafe { f(guest(cx), rep, &mut out) };
    (status, out)
}

/// A method WIT gives no error value (tensor.ty, error.data...): what the table handed back.
pub(crate) fn method<T: NnStore>(f: ByRep, cx: &Cx<'_, T>, rep: u32, what: &str) -> Result<WitOut> {
    let (status, out) = by_rep(f, cx, rep);
    must(status, &out, what)?;
    Ok(out)
}

pub(crate) fn drop_resource<T: NnStore>(host: WitHost, cx: Cx<'_, T>, kind: WitResource, rep: u32) -> Result<()> {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `guest` is this store's data.
    let status = unsafe { (host.drop)(guest(&cx), kind, rep, &mut out) };
    must(status, &out, "resource drop")
}

fn define_errors<T: NnStore, const V: u8>(i: &mut LinkerInstance<'_, T>, host: WitHost) -> Result<()> {
    i.resource("error", ResourceType::host::<NnError<V>>(), move |cx, rep| {
        drop_resource(host, cx, WitResource::Error, rep)
    })?;
    if V == V_06_25 {
        i.func_wrap(
            "[constructor]error",
            move |cx: Cx<'_, T>, (code, data): (ErrorCode, String)| {
                let mut out = WitOut::default();
                let status =
                    unsafe { (host.error_new)(guest(&cx), WitStr::of(code.name()), WitStr::of(&data), &mut out) };
                must(status, &out, "error constructor")?;
                Ok((Resource::<NnError<V>>::new_own(out.rep),))
            },
        )?;
    }
    i.func_wrap(
        "[method]error.code",
        move |cx: Cx<'_, T>, (e,): (Resource<NnError<V>>,)| {
            let out = method(host.error_code, &cx, e.rep(), "error.code")?;
            Ok((case::<ErrorCode>(&out, "error.code")?,))
        },
    )?;
    i.func_wrap(
        "[method]error.data",
        move |cx: Cx<'_, T>, (e,): (Resource<NnError<V>>,)| {
            let out = method(host.error_data, &cx, e.rep(), "error.data")?;
            Ok((String::from_utf8_lossy(unsafe { out.slice::<u8>() }).into_owned(),))
        },
    )
}

fn define_tensor<T: NnStore, const V: u8>(i: &mut LinkerInstance<'_, T>, host: WitHost) -> Result<()> {
    i.resource("tensor", ResourceType::host::<Tensor<V>>(), move |cx, rep| {
        drop_resource(host, cx, WitResource::Tensor, rep)
    })?;
    i.func_wrap(
        "[constructor]tensor",
        move |cx: Cx<'_, T>, (dims, ty, data): (WasmList<u32>, TensorType, WasmList<u8>)| {
            let g = guest(&cx);
            let dims = dims.as_le_slice(&cx);
            // In place: the C++ side copies the bytes once, into the tensor it keeps.
            let data = data.as_le_slice(&cx);
            let mut out = WitOut::default();
            let status = unsafe {
                (host.tensor_new)(
                    g,
                    dims.as_ptr(),
                    dims.len(),
                    WitStr::of(ty.name()),
                    WitBytes {
                        data: data.as_ptr(),
                        len: data.len(),
                    },
                    &mut out,
                )
            };
            must(status, &out, "tensor constructor")?;
            Ok((Resource::<Tensor<V>>::new_own(out.rep),))
        },
    )?;
    i.func_wrap(
        "[method]tensor.dimensions",
        move |cx: Cx<'_, T>, (t,): (Resource<Tensor<V>>,)| {
            let out = method(host.tensor_dimensions, &cx, t.rep(), "tensor.dimensions")?;
            Ok((unsafe { out.slice::<u32>() }.to_vec(),))
        },
    )?;
    i.func_wrap(
        "[method]tensor.ty",
        move |cx: Cx<'_, T>, (t,): (Resource<Tensor<V>>,)| {
            let out = method(host.tensor_type, &cx, t.rep(), "tensor.ty")?;
            Ok((case::<TensorType>(&out, "tensor.ty")?,))
        },
    )?;
    i.func_wrap(
        "[method]tensor.data",
        move |cx: Cx<'_, T>, (t,): (Resource<Tensor<V>>,)| {
            let out = method(host.tensor_data, &cx, t.rep(), "tensor.data")?;
            // SAFETY: the C++ side keeps these bytes alive until the guest's next tensor.data or the
            // store's end, so they outlive the lowering into guest memory that follows this return.
            let bytes: &'static [u8] = unsafe { out.slice::<u8>() };
            Ok((bytes,))
        },
    )
}

fn define_graph<T: NnStore, const V: u8>(i: &mut LinkerInstance<'_, T>, host: WitHost, mode: LongCalls) -> Result<()> {
    i.resource("graph", ResourceType::host::<Graph<V>>(), move |cx, rep| {
        drop_resource(host, cx, WitResource::Graph, rep)
    })?;
    define_long(
        i,
        mode,
        host,
        "load",
        |_| None,
        |mut cx, (builders, encoding, target): (WasmList<WasmList<u8>>, GraphEncoding, ExecutionTarget), off_thread| {
            let lists = builders
                .iter(cx.as_context_mut())?
                .collect::<Result<Vec<WasmList<u8>>>>()?;
            // Read where they lie (the framework keeps its own copy), unless the load leaves the
            // store's thread: guest memory is the guest's again once the store's borrow ends.
            let owned: Vec<Vec<u8>> = match off_thread {
                true => lists.iter().map(|l| l.as_le_slice(&cx).to_vec()).collect(),
                false => Vec::new(),
            };
            let spans = match off_thread {
                true => owned.iter().map(|b| WitBytes::of(b)).collect(),
                false => lists.iter().map(|l| WitBytes::of(l.as_le_slice(&cx))).collect(),
            };
            Ok(Builders {
                spans,
                _owned: owned,
                encoding,
                target,
            })
        },
        |host, g, b| {
            let mut out = WitOut::default();
            let status = unsafe {
                (host.load)(
                    g,
                    b.spans.as_ptr(),
                    b.spans.len(),
                    WitStr::of(b.encoding.name()),
                    WitStr::of(b.target.name()),
                    &mut out,
                )
            };
            Ok((made::<Graph<V>, V>(status, &out)?,))
        },
    )?;
    define_long(
        i,
        mode,
        host,
        "load-by-name",
        |_| None,
        |_, (name,): (String,), _| Ok(name),
        |host, g, name| {
            let mut out = WitOut::default();
            let status = unsafe { (host.load_by_name)(g, WitStr::of(&name), &mut out) };
            Ok((made::<Graph<V>, V>(status, &out)?,))
        },
    )?;
    i.func_wrap(
        "[method]graph.init-execution-context",
        move |cx: Cx<'_, T>, (graph,): (Resource<Graph<V>>,)| {
            let (status, out) = by_rep(host.init_execution_context, &cx, graph.rep());
            Ok((made::<Context<V>, V>(status, &out)?,))
        },
    )
}

type NamedTensors<const V: u8> = Vec<(String, Resource<Tensor<V>>)>;

/// load's graph builders: spans of guest memory, or of copies (`_owned`) when the load runs off
/// the store's thread.
struct Builders {
    spans: Vec<WitBytes>,
    _owned: Vec<Vec<u8>>,
    encoding: GraphEncoding,
    target: ExecutionTarget,
}
// The spans point into `_owned`, which moves with them, or into guest memory for a call that
// stays on the store's thread.
unsafe impl Send for Builders {}

fn define_inference<T: NnStore, const V: u8>(
    i: &mut LinkerInstance<'_, T>,
    host: WitHost,
    mode: LongCalls,
) -> Result<()> {
    i.resource(
        "graph-execution-context",
        ResourceType::host::<Context<V>>(),
        move |cx, rep| drop_resource(host, cx, WitResource::Context, rep),
    )?;
    if V == V_10_28 {
        define_long(
            i,
            mode,
            host,
            "[method]graph-execution-context.compute",
            |(ctx, _)| Some(*ctx),
            |_, (ctx, inputs): (Resource<Context<V>>, NamedTensors<V>), _| {
                Ok((
                    ctx.rep(),
                    inputs.into_iter().map(|(n, t)| (n, t.rep())).collect::<Vec<_>>(),
                ))
            },
            |host, g, (ctx, inputs)| {
                let outputs = compute_named(&host, g, ctx, &inputs)?.map(|outputs| {
                    outputs
                        .into_iter()
                        .map(|(n, t)| (n, Resource::<Tensor<V>>::new_own(t)))
                        .collect::<NamedTensors<V>>()
                });
                Ok((outputs.map_err(Resource::<NnError<V>>::new_own),))
            },
        )?;
        return Ok(());
    }
    i.func_wrap(
        "[method]graph-execution-context.set-input",
        move |cx: Cx<'_, T>, (ctx, name, t): (Resource<Context<V>>, String, Resource<Tensor<V>>)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.set_input)(guest(&cx), ctx.rep(), WitStr::of(&name), t.rep(), &mut out) };
            Ok((unit::<V>(status, &out)?,))
        },
    )?;
    define_long(
        i,
        mode,
        host,
        "[method]graph-execution-context.compute",
        |ctx| Some(*ctx),
        |_, (ctx,): (Resource<Context<V>>,), _| Ok(ctx.rep()),
        |host, g, ctx| {
            let mut out = WitOut::default();
            let status = unsafe { (host.compute)(g, ctx, &mut out) };
            Ok((unit::<V>(status, &out)?,))
        },
    )?;
    i.func_wrap(
        "[method]graph-execution-context.get-output",
        move |cx: Cx<'_, T>, (ctx, name): (Resource<Context<V>>, String)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.get_output)(guest(&cx), ctx.rep(), WitStr::of(&name), &mut out) };
            Ok((made::<Tensor<V>, V>(status, &out)?,))
        },
    )
}

fn define_version<T: NnStore, const V: u8>(linker: &mut Linker<T>, host: WitHost, mode: LongCalls) -> Result<()> {
    let version = VERSIONS[V as usize];
    define_errors::<T, V>(&mut linker.instance(&format!("wasi:nn/errors@{version}"))?, host)?;
    define_tensor::<T, V>(&mut linker.instance(&format!("wasi:nn/tensor@{version}"))?, host)?;
    define_graph::<T, V>(&mut linker.instance(&format!("wasi:nn/graph@{version}"))?, host, mode)?;
    define_inference::<T, V>(
        &mut linker.instance(&format!("wasi:nn/inference@{version}"))?,
        host,
        mode,
    )
}

/// Adds every served wasi:nn version and wasinn's extensions, their long calls as `mode` says.
pub fn define<T: NnStore>(linker: &mut Linker<T>, host: WitHost, mode: LongCalls) -> Result<()> {
    define_version::<T, 0>(linker, host, mode)?;
    define_version::<T, 1>(linker, host, mode)?;
    define_version::<T, 2>(linker, host, mode)?;
    crate::nn_ext::define(linker, host, mode)?;
    crate::nn_async::define(linker, host)?;
    crate::spin_llm::define(linker, host, mode)
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
