// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasinn:nn-ext@0.1.0` (wit/wasinn-nn-ext/nn-ext.wit): describing a graph's inputs and
//! outputs, its properties, and prompting a text model, over `wasi:nn@0.2.0-rc-2024-10-28`'s
//! resources. Beyond the spec, in a package of wasinn's own, so a component that does not import it
//! sees nothing new. bindgen!'s host traits (bindings.rs) over the same `WitHost` table as wasi:nn,
//! whose rules are the C++ side's; prompt's generation steps are long calls (long_call.rs).
use wasmtime::component::Resource;
use wasmtime::{format_err, Result};

use crate::bindings::blocking::wasinn::nn_ext::{describe, properties};
use crate::bindings::{Context1028, Error1028, Graph1028};
use crate::host::*;
use crate::long_call::{in_place, long_fn, off_thread as run_off_thread};
use crate::wit_nn::{answer, case_opt, chars, guest_of, table, unit, Access, ByRep, Nn, NnStore, TensorType};

/// A prompt session: an execution context of its own (its rep is the NnSession's handle).
pub struct PromptContext;

/// describe's inputs or outputs: `slot` is describe_inputs or describe_outputs.
fn describe_io(slot: ByRep, g: Guest, graph: u32, what: &str) -> Result<Vec<describe::TensorDescription>> {
    let out = answer(slot, g, graph, what)?;
    // SAFETY: the table hands back `len` tensor descriptions, valid until the next call.
    let ios = unsafe { out.slice::<WitTensorDescription>() };
    ios.iter()
        .map(|io| {
            let dims = io.has_dimensions.then(|| {
                if io.dimensions_len == 0 || io.dimensions.is_null() {
                    Vec::new()
                } else {
                    unsafe { std::slice::from_raw_parts(io.dimensions, io.dimensions_len) }.to_vec()
                }
            });
            let tensor_type = if io.has_tensor_type {
                case_opt::<TensorType>(unsafe { &io.tensor_type.to_string_lossy() }, what)?
            } else {
                None
            };
            Ok(describe::TensorDescription {
                name: unsafe { io.name.to_string_lossy() },
                tensor_type,
                dimensions: dims,
            })
        })
        .collect()
}

impl describe::Host for Nn {}

impl<T: NnStore> describe::HostWithStore<T> for Nn {
    fn inputs(host: Access<'_, T>, graph: Resource<Graph1028>) -> Result<Vec<describe::TensorDescription>> {
        describe_io(
            slot!(table(), describe_inputs),
            guest_of(&host),
            graph.rep(),
            "describe.inputs",
        )
    }
    fn outputs(host: Access<'_, T>, graph: Resource<Graph1028>) -> Result<Vec<describe::TensorDescription>> {
        describe_io(
            slot!(table(), describe_outputs),
            guest_of(&host),
            graph.rep(),
            "describe.outputs",
        )
    }
}

type Unit = std::result::Result<(), Resource<Error1028>>;

type ByRepNameValue = unsafe extern "C" fn(Guest, u32, WitStr, WitStr, *mut WitOut) -> WitStatus;

/// set_property (on a graph) or set_context_property (on a context).
fn set_property(slot: ByRepNameValue, g: Guest, rep: u32, name: &str, value: &str) -> Result<Unit> {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `g` is the store's guest state.
    let status = unsafe { slot(g, rep, WitStr::of(name), WitStr::of(value), &mut out) };
    unit(status, &out)
}

impl properties::Host for Nn {}

impl<T: NnStore> properties::HostWithStore<T> for Nn {
    fn list_properties(host: Access<'_, T>, graph: Resource<Graph1028>) -> Result<Vec<String>> {
        let out = answer(
            slot!(table(), properties_list_properties),
            guest_of(&host),
            graph.rep(),
            "list-properties",
        )?;
        // SAFETY: the table hands back `len` strings, valid until the next call.
        Ok(unsafe { out.slice::<WitStr>() }
            .iter()
            .map(|s| unsafe { s.to_string_lossy() })
            .collect())
    }
    fn get_property(
        host: Access<'_, T>,
        graph: Resource<Graph1028>,
        name: String,
    ) -> Result<std::result::Result<String, Resource<Error1028>>> {
        let mut out = WitOut::default();
        let status = unsafe {
            slot!(table(), properties_get_property)(guest_of(&host), graph.rep(), WitStr::of(&name), &mut out)
        };
        Ok(crate::wit_nn::call(status, &out)?
            .map(|()| chars(&out))
            .map_err(Resource::new_own))
    }
    fn set_property(host: Access<'_, T>, graph: Resource<Graph1028>, name: String, value: String) -> Result<Unit> {
        set_property(
            slot!(table(), properties_set_property),
            guest_of(&host),
            graph.rep(),
            &name,
            &value,
        )
    }
    fn set_context_property(
        host: Access<'_, T>,
        context: Resource<Context1028>,
        name: String,
        value: String,
    ) -> Result<Unit> {
        set_property(
            slot!(table(), properties_set_context_property),
            guest_of(&host),
            context.rep(),
            &name,
            &value,
        )
    }
}

/// `result<_, string>` or `result<string, string>` of the prompt interface: ERR's text is
/// `out.message`.
pub(crate) fn text_err(status: WitStatus, out: &WitOut) -> Result<std::result::Result<(), String>> {
    match status {
        WitStatus::Ok => Ok(Ok(())),
        // SAFETY: the table's promise for the prompt functions' ERR.
        WitStatus::Err => Ok(Err(unsafe { out.message.to_string_lossy() })),
        WitStatus::Trap => Err(format_err!("{}", unsafe { out.message.to_string_lossy() })),
        unknown => Err(format_err!("{}", unknown.unknown())),
    }
}

type Text<R> = std::result::Result<R, String>;

fn prompt_init(host: WitHost, g: Guest, (graph,): (u32,)) -> Result<Text<Resource<PromptContext>>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, prompt_init)(g, graph, &mut out) };
    Ok(text_err(status, &out)?.map(|()| Resource::new_own(out.rep)))
}

fn prompt_compute(host: WitHost, g: Guest, (context, prompt): (u32, String)) -> Result<Text<String>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, context_compute)(g, context, WitStr::of(&prompt), &mut out) };
    Ok(text_err(status, &out)?.map(|()| chars(&out)))
}

fn prompt_start(host: WitHost, g: Guest, (context, input, text): (u32, String, String)) -> Result<Text<()>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, context_start)(g, context, WitStr::of(&input), WitStr::of(&text), &mut out) };
    text_err(status, &out)
}

fn prompt_next(host: WitHost, g: Guest, (context,): (u32,)) -> Result<Text<Option<String>>> {
    let mut out = WitOut::default();
    let status = unsafe { slot!(host, context_next)(g, context, &mut out) };
    // On OK, rep 1 hands back the piece's chars, valid until the next call.
    Ok(text_err(status, &out)?.map(|()| (out.rep == 1).then(|| chars(&out))))
}

/// prompt in the expansion `$mode` (bindings.rs), whose module is `$m`.
macro_rules! prompt {
    ($mode:ident, $($m:ident)::+) => {
        const _: () = {
            use $($m)::+::wasinn::nn_ext::prompt;
            impl prompt::HostContext for Nn {}
            impl prompt::Host for Nn {}
            impl<T: NnStore> prompt::HostContextWithStore<T> for Nn {
                fn drop(host: Access<'_, T>, c: Resource<PromptContext>) -> Result<()> {
                    crate::wit_nn::drop_rep(guest_of(&host), WitResource::Context, c.rep())
                }
                long_fn!($mode, "[method]context.compute",
                    fn compute(host, c: Resource<PromptContext>, prompt: String) -> Text<String>,
                    Some(c.rep()), (c.rep(), prompt), prompt_compute);
                fn set_property(
                    host: Access<'_, T>,
                    c: Resource<PromptContext>,
                    name: String,
                    value: String,
                ) -> Result<Text<()>> {
                    let mut out = WitOut::default();
                    let status = unsafe {
                        slot!(table(), context_set_property)(
                            guest_of(&host), c.rep(), WitStr::of(&name), WitStr::of(&value), &mut out,
                        )
                    };
                    text_err(status, &out)
                }
                long_fn!($mode, "[method]context.start",
                    fn start(host, c: Resource<PromptContext>, input: String, text: String) -> Text<()>,
                    Some(c.rep()), (c.rep(), input, text), prompt_start);
                long_fn!($mode, "[method]context.next",
                    fn next(host, c: Resource<PromptContext>) -> Text<Option<String>>,
                    Some(c.rep()), (c.rep()), prompt_next);
                fn metadata(host: Access<'_, T>, c: Resource<PromptContext>) -> Result<Text<String>> {
                    let mut out = WitOut::default();
                    let status = unsafe { slot!(table(), context_metadata)(guest_of(&host), c.rep(), &mut out) };
                    Ok(text_err(status, &out)?.map(|()| chars(&out)))
                }
            }
            impl<T: NnStore> prompt::HostWithStore<T> for Nn {
                long_fn!($mode, "init",
                    fn init(host, graph: Resource<Graph1028>) -> Text<Resource<PromptContext>>,
                    None, (graph.rep()), prompt_init);
            }
        };
    };
}

prompt!(blocking, crate::bindings::blocking);
prompt!(off_thread, crate::bindings::off_thread);
