// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The three wasi:nn functions that move a `list<u8>` of any size, defined by hand over bindgen!'s
//! own (bindings.rs), which lift a `list<u8>` into an owned `Vec<u8>` and lower one from a
//! `Vec<u8>`: a copy more each way of what may be a large tensor or a whole model (measured: 4 to
//! 7 ms more per inference for a 16 MiB tensor in and out, 26 -> 30 ms and 57 -> 64 ms; a model
//! loaded by its bytes held twice). Here the tensor constructor and `load` read the bytes where
//! they lie in guest memory (the C++ side copies what it keeps) and `tensor.data` lowers the C++
//! side's bytes with one memcpy. `load` only where it runs on the store's thread
//! (`LongCalls::InPlace`): off it, guest memory is the guest's again and its bytes must be copied
//! anyway. The rest of each interface, and the types these functions take, are bindgen!'s; what
//! they do is wit_nn.rs's, as for every version.
use wasmtime::component::{ComponentType, Lift, Linker, Resource, WasmList};
use wasmtime::{AsContext, AsContextMut, Result, StoreContextMut};

use crate::bindings::blocking::wasi::nn0_2_0_rc_2024_10_28 as v1028;
use crate::bindings::blocking::wasi::{nn0_2_0_rc_2024_06_25 as v0625, nn0_2_0_rc_2024_08_19 as v0819};
use crate::host::*;
use crate::long_call::LongCalls;
use crate::wit_nn::{answer, load_spans, table, tensor_new, Cases, NnStore, Tensor};

/// A generated enum that these functions take.
trait Case: Cases + PartialEq + ComponentType + Lift + Send + Sync {}
impl<C: Cases + PartialEq + ComponentType + Lift + Send + Sync> Case for C {}

fn guest<T: NnStore>(cx: &StoreContextMut<'_, T>) -> Guest {
    T::nn_guest(cx.as_context())
}

fn define_version<T: NnStore, const V: u8, Ty: Case, Enc: Case, Tgt: Case>(
    linker: &mut Linker<T>,
    version: &str,
    mode: LongCalls,
) -> Result<()> {
    let mut tensor = linker.instance(&format!("wasi:nn/tensor@{version}"))?;
    tensor.func_wrap(
        "[constructor]tensor",
        |cx: StoreContextMut<'_, T>, (dims, ty, data): (WasmList<u32>, Ty, WasmList<u8>)| {
            let rep = tensor_new(guest(&cx), dims.as_le_slice(&cx), ty, data.as_le_slice(&cx))?;
            Ok((Resource::<Tensor<V>>::new_own(rep),))
        },
    )?;
    tensor.func_wrap(
        "[method]tensor.data",
        |cx: StoreContextMut<'_, T>, (t,): (Resource<Tensor<V>>,)| {
            let out = answer(slot!(table(), tensor_data), guest(&cx), t.rep(), "tensor.data")?;
            // SAFETY: the C++ side keeps these bytes alive until the guest's next tensor.data or the
            // store's end, so they outlive the lowering into guest memory that follows this return.
            let bytes: &'static [u8] = unsafe { out.slice::<u8>() };
            Ok((bytes,))
        },
    )?;
    if mode == LongCalls::InPlace {
        linker.instance(&format!("wasi:nn/graph@{version}"))?.func_wrap(
            "load",
            |mut cx: StoreContextMut<'_, T>, (builders, encoding, target): (WasmList<WasmList<u8>>, Enc, Tgt)| {
                let lists = builders
                    .iter(cx.as_context_mut())?
                    .collect::<Result<Vec<WasmList<u8>>>>()?;
                let spans: Vec<WitBytes> = lists.iter().map(|l| WitBytes::of(l.as_le_slice(&cx))).collect();
                Ok((load_spans::<V, _, _>(table(), guest(&cx), &spans, encoding, target)?,))
            },
        )?;
    }
    Ok(())
}

/// Replaces bindgen!'s definitions of the three functions in every version on `linker`, which
/// `define` has just given them. Shadowing is allowed only meanwhile: no linker wasinn makes
/// allows it otherwise.
pub(crate) fn define<T: NnStore>(linker: &mut Linker<T>, mode: LongCalls) -> Result<()> {
    linker.allow_shadowing(true);
    let defined = define_version::<
        T,
        0,
        v0625::tensor::TensorType,
        v0625::graph::GraphEncoding,
        v0625::graph::ExecutionTarget,
    >(linker, "0.2.0-rc-2024-06-25", mode)
    .and_then(|()| {
        define_version::<T, 1, v0819::tensor::TensorType, v0819::graph::GraphEncoding, v0819::graph::ExecutionTarget>(
            linker,
            "0.2.0-rc-2024-08-19",
            mode,
        )
    })
    .and_then(|()| {
        define_version::<T, 2, v1028::tensor::TensorType, v1028::graph::GraphEncoding, v1028::graph::ExecutionTarget>(
            linker,
            "0.2.0-rc-2024-10-28",
            mode,
        )
    });
    linker.allow_shadowing(false);
    defined
}
