// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! `wasinn:nn-ext@0.1.0` (wit/wasinn-nn-ext/nn-ext.wit): describing a graph's inputs and
//! outputs, its properties, and prompting a text model, as typed host functions over
//! `wasi:nn@0.2.0-rc-2024-10-28`'s resources. Beyond the spec, in a package of wasinn's own, so
//! a component that does not import it sees nothing new. The rules are the C++ side's, through
//! the same `WitHost` table as wasi:nn.
use wasmtime::component::{ComponentType, Linker, Lower, Resource, ResourceType};
use wasmtime::{format_err, Result};

use crate::host::*;
use crate::long_call::{define_long, LongCalls};
use crate::wit_nn::{call, case_opt, drop_resource, guest, method, unit, Cx, NnStore, V_10_28};
use crate::wit_nn::{Context, Graph, NnError, TensorType};

const VERSION: &str = "0.1.0";
const V: u8 = V_10_28;

/// A prompt session: an execution context of its own (its rep is the NnSession's handle).
pub struct PromptContext;

#[derive(ComponentType, Lower)]
#[component(record)]
pub struct TensorDescription {
    name: String,
    #[component(name = "tensor-type")]
    tensor_type: Option<TensorType>,
    dimensions: Option<Vec<i64>>,
}

fn describe<T: NnStore>(host: WitHost, cx: &Cx<'_, T>, graph: u32, outputs: i32) -> Result<Vec<TensorDescription>> {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `guest` is this store's data.
    let status = unsafe { (host.describe)(guest(cx), graph, outputs, &mut out) };
    crate::wit_nn::must(status, &out, "describe")?;
    // SAFETY: the table hands back `len` wasinn_wit_io, valid until the next call.
    let ios = unsafe { out.slice::<WitIo>() };
    ios.iter()
        .map(|io| {
            let dims = (io.has_dims != 0).then(|| {
                if io.rank == 0 || io.dims.is_null() {
                    Vec::new()
                } else {
                    unsafe { std::slice::from_raw_parts(io.dims, io.rank) }.to_vec()
                }
            });
            Ok(TensorDescription {
                name: unsafe { io.name.to_string_lossy() },
                tensor_type: case_opt::<TensorType>(unsafe { &io.ty.to_string_lossy() }, "describe")?,
                dimensions: dims,
            })
        })
        .collect()
}

/// The text the table handed back in `out` (chars), copied.
/// The table's set_property on a graph (on_context 0) or a context (1).
fn set_property<T: NnStore>(
    host: WitHost,
    cx: &Cx<'_, T>,
    rep: u32,
    on_context: i32,
    name: &str,
    value: &str,
) -> Result<std::result::Result<(), Resource<NnError<V>>>> {
    let mut out = WitOut::default();
    // SAFETY: the table's contract; `guest` is this store's data.
    let status = unsafe {
        (host.set_property)(
            guest(cx),
            rep,
            on_context,
            WitStr::of(name),
            WitStr::of(value),
            &mut out,
        )
    };
    unit::<V>(status, &out)
}

pub(crate) fn chars(out: &WitOut) -> String {
    String::from_utf8_lossy(unsafe { out.slice::<u8>() }).into_owned()
}

/// `result<_, string>` or `result<string, string>` of the prompt interface: ERR's text is
/// `out.message`.
pub(crate) fn text_err(status: WitStatus, out: &WitOut) -> Result<std::result::Result<(), String>> {
    match status {
        WitStatus::Ok => Ok(Ok(())),
        // SAFETY: the table's promise for the prompt functions' ERR.
        WitStatus::Err => Ok(Err(unsafe { out.message.to_string_lossy() })),
        WitStatus::Trap => Err(format_err!("{}", unsafe { out.message.to_string_lossy() })),
    }
}

pub fn define<T: NnStore>(linker: &mut Linker<T>, host: WitHost, mode: LongCalls) -> Result<()> {
    let mut d = linker.instance(&format!("wasinn:nn-ext/describe@{VERSION}"))?;
    d.func_wrap("inputs", move |cx: Cx<'_, T>, (g,): (Resource<Graph<V>>,)| {
        Ok((describe(host, &cx, g.rep(), 0)?,))
    })?;
    d.func_wrap("outputs", move |cx: Cx<'_, T>, (g,): (Resource<Graph<V>>,)| {
        Ok((describe(host, &cx, g.rep(), 1)?,))
    })?;

    let mut p = linker.instance(&format!("wasinn:nn-ext/properties@{VERSION}"))?;
    p.func_wrap("list-properties", move |cx: Cx<'_, T>, (g,): (Resource<Graph<V>>,)| {
        let out = method(host.list_properties, &cx, g.rep(), "list-properties")?;
        // SAFETY: the table hands back `len` strings, valid until the next call.
        let names = unsafe { out.slice::<WitStr>() }
            .iter()
            .map(|s| unsafe { s.to_string_lossy() })
            .collect::<Vec<_>>();
        Ok((names,))
    })?;
    p.func_wrap(
        "get-property",
        move |cx: Cx<'_, T>, (g, name): (Resource<Graph<V>>, String)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.get_property)(guest(&cx), g.rep(), WitStr::of(&name), &mut out) };
            let value = call(status, &out)?
                .map(|()| chars(&out))
                .map_err(Resource::<NnError<V>>::new_own);
            Ok((value,))
        },
    )?;
    p.func_wrap(
        "set-property",
        move |cx: Cx<'_, T>, (g, name, value): (Resource<Graph<V>>, String, String)| {
            Ok((set_property(host, &cx, g.rep(), 0, &name, &value)?,))
        },
    )?;
    p.func_wrap(
        "set-context-property",
        move |cx: Cx<'_, T>, (c, name, value): (Resource<Context<V>>, String, String)| {
            Ok((set_property(host, &cx, c.rep(), 1, &name, &value)?,))
        },
    )?;

    let mut q = linker.instance(&format!("wasinn:nn-ext/prompt@{VERSION}"))?;
    q.resource("context", ResourceType::host::<PromptContext>(), move |cx, rep| {
        drop_resource(host, cx, WitResource::Context, rep)
    })?;
    define_long(
        &mut q,
        mode,
        host,
        "init",
        |_| None,
        |_, (g,): (Resource<Graph<V>>,), _| Ok(g.rep()),
        |host, guest, g| {
            let mut out = WitOut::default();
            let status = unsafe { (host.prompt_init)(guest, g, &mut out) };
            Ok((text_err(status, &out)?.map(|()| Resource::<PromptContext>::new_own(out.rep)),))
        },
    )?;
    define_long(
        &mut q,
        mode,
        host,
        "[method]context.compute",
        |(c, _)| Some(*c),
        |_, (c, prompt): (Resource<PromptContext>, String), _| Ok((c.rep(), prompt)),
        |host, guest, (c, prompt)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.prompt_compute)(guest, c, WitStr::of(&prompt), &mut out) };
            Ok((text_err(status, &out)?.map(|()| chars(&out)),))
        },
    )?;
    q.func_wrap(
        "[method]context.set-property",
        move |cx: Cx<'_, T>, (c, name, value): (Resource<PromptContext>, String, String)| {
            let mut out = WitOut::default();
            let status = unsafe {
                (host.prompt_set_property)(guest(&cx), c.rep(), WitStr::of(&name), WitStr::of(&value), &mut out)
            };
            Ok((text_err(status, &out)?,))
        },
    )?;
    define_long(
        &mut q,
        mode,
        host,
        "[method]context.start",
        |(c, _, _)| Some(*c),
        |_, (c, input, text): (Resource<PromptContext>, String, String), _| Ok((c.rep(), input, text)),
        |host, guest, (c, input, text)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.prompt_start)(guest, c, WitStr::of(&input), WitStr::of(&text), &mut out) };
            Ok((text_err(status, &out)?,))
        },
    )?;
    define_long(
        &mut q,
        mode,
        host,
        "[method]context.next",
        |c| Some(*c),
        |_, (c,): (Resource<PromptContext>,), _| Ok(c.rep()),
        |host, guest, c| {
            let mut out = WitOut::default();
            let status = unsafe { (host.prompt_next)(guest, c, &mut out) };
            // On OK, rep 1 hands back the piece's chars, valid until the next call.
            Ok((text_err(status, &out)?.map(|()| (out.rep == 1).then(|| chars(&out))),))
        },
    )?;
    q.func_wrap(
        "[method]context.metadata",
        move |cx: Cx<'_, T>, (c,): (Resource<PromptContext>,)| {
            let mut out = WitOut::default();
            let status = unsafe { (host.prompt_metadata)(guest(&cx), c.rep(), &mut out) };
            let text = text_err(status, &out)?.map(|()| chars(&out));
            Ok((text,))
        },
    )?;
    Ok(())
}
