// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The host side of every WIT interface wasinn serves, generated from wit/ by Wasmtime's `bindgen!`:
//! wasi:nn's three versions, wasinn:nn-ext, wasinn:nn-async and Spin's llm, with their types and a
//! host trait per interface and resource, implemented over the C table (wit_host.h) in wit_nn.rs,
//! nn_ext.rs, nn_async.rs and spin_llm.rs. Every function takes the store (`store`: its data leads
//! to the C++ guest state) and may trap (`trappable`: the table's TRAP). Two expansions of the same
//! WIT, for the two ways a linker takes the long calls (long_call.rs): in `blocking` every function
//! is a plain host function; in `off_thread` a load, a compute, a generation step and Spin's calls
//! are async host functions, and the interfaces with none of those are `blocking`'s own (`with`).
//!
//! The resources are wasinn's types (wit_nn.rs, nn_ext.rs), one set per wasi:nn version, so a
//! handle of one version is never taken by another's functions; a resource's rep is the C++
//! session's handle.
pub use crate::nn_ext::PromptContext;
pub use crate::wit_nn::{Context, Graph, NnError, Tensor};

/// A resource type by name, for `with` (which takes paths without generics).
pub type Tensor0625 = Tensor<0>;
pub type Tensor0819 = Tensor<1>;
pub type Tensor1028 = Tensor<2>;
pub type Graph0625 = Graph<0>;
pub type Graph0819 = Graph<1>;
pub type Graph1028 = Graph<2>;
pub type Context0625 = Context<0>;
pub type Context0819 = Context<1>;
pub type Context1028 = Context<2>;
pub type Error0625 = NnError<0>;
pub type Error0819 = NnError<1>;
pub type Error1028 = NnError<2>;

/// One expansion of the served world: `imports` says which functions are async host functions,
/// `with` which interfaces are another expansion's.
macro_rules! served {
    ({ $($imports:tt)* }, { $($with:tt)* }) => {
        wasmtime::component::bindgen!({
            inline: "
                package wasinn:host;
                world imports {
                    include wasi:nn/ml@0.2.0-rc-2024-06-25;
                    include wasi:nn/ml@0.2.0-rc-2024-08-19;
                    include wasi:nn/ml@0.2.0-rc-2024-10-28;
                    include wasinn:nn-ext/imports@0.1.0;
                    include wasinn:nn-async/guest@0.1.0;
                    import fermyon:spin/llm@2.0.0;
                }
            ",
            path: [
                "../../../wit/wasi-nn/0.2.0-rc-2024-06-25",
                "../../../wit/wasi-nn/0.2.0-rc-2024-08-19",
                "../../../wit/wasi-nn/0.2.0-rc-2024-10-28",
                "../../../wit/wasinn-nn-ext",
                "../../../wit/wasinn-nn-async",
                "../../../wit/fermyon-spin",
            ],
            // Spin's llm error variant is compared in tests.
            additional_derives: [PartialEq],
            imports: { $($imports)* },
            with: {
                $($with)*
            },
        });
    };
}

/// `LongCalls::InPlace`: every function a plain host function.
pub mod blocking {
    pub use super::*;
    served!({ default: store | trappable }, {
        "wasi:nn/tensor@0.2.0-rc-2024-06-25.tensor": Tensor0625,
        "wasi:nn/tensor@0.2.0-rc-2024-08-19.tensor": Tensor0819,
        "wasi:nn/tensor@0.2.0-rc-2024-10-28.tensor": Tensor1028,
        "wasi:nn/errors@0.2.0-rc-2024-06-25.error": Error0625,
        "wasi:nn/errors@0.2.0-rc-2024-08-19.error": Error0819,
        "wasi:nn/errors@0.2.0-rc-2024-10-28.error": Error1028,
        "wasi:nn/graph@0.2.0-rc-2024-06-25.graph": Graph0625,
        "wasi:nn/graph@0.2.0-rc-2024-08-19.graph": Graph0819,
        "wasi:nn/graph@0.2.0-rc-2024-10-28.graph": Graph1028,
        "wasi:nn/inference@0.2.0-rc-2024-06-25.graph-execution-context": Context0625,
        "wasi:nn/inference@0.2.0-rc-2024-08-19.graph-execution-context": Context0819,
        "wasi:nn/inference@0.2.0-rc-2024-10-28.graph-execution-context": Context1028,
        "wasinn:nn-ext/prompt@0.1.0.context": PromptContext,
    });
}

/// `LongCalls::OffThread`: the long calls async host functions.
pub mod off_thread {
    pub use super::*;
    served!(
        {
            "wasi:nn/graph.load": async | store | trappable,
            "wasi:nn/graph.load-by-name": async | store | trappable,
            "wasi:nn/inference.[method]graph-execution-context.compute": async | store | trappable,
            "wasinn:nn-ext/prompt.init": async | store | trappable,
            "wasinn:nn-ext/prompt.[method]context.compute": async | store | trappable,
            "wasinn:nn-ext/prompt.[method]context.start": async | store | trappable,
            "wasinn:nn-ext/prompt.[method]context.next": async | store | trappable,
            "fermyon:spin/llm.infer": async | store | trappable,
            "fermyon:spin/llm.generate-embeddings": async | store | trappable,
            default: store | trappable,
        },
        {
            "wasi:nn/tensor@0.2.0-rc-2024-06-25": super::blocking::wasi::nn0_2_0_rc_2024_06_25::tensor,
            "wasi:nn/tensor@0.2.0-rc-2024-08-19": super::blocking::wasi::nn0_2_0_rc_2024_08_19::tensor,
            "wasi:nn/tensor@0.2.0-rc-2024-10-28": super::blocking::wasi::nn0_2_0_rc_2024_10_28::tensor,
            "wasi:nn/errors@0.2.0-rc-2024-06-25": super::blocking::wasi::nn0_2_0_rc_2024_06_25::errors,
            "wasi:nn/errors@0.2.0-rc-2024-08-19": super::blocking::wasi::nn0_2_0_rc_2024_08_19::errors,
            "wasi:nn/errors@0.2.0-rc-2024-10-28": super::blocking::wasi::nn0_2_0_rc_2024_10_28::errors,
            "wasi:nn/graph@0.2.0-rc-2024-06-25.graph": Graph0625,
            "wasi:nn/graph@0.2.0-rc-2024-08-19.graph": Graph0819,
            "wasi:nn/graph@0.2.0-rc-2024-10-28.graph": Graph1028,
            "wasi:nn/inference@0.2.0-rc-2024-06-25.graph-execution-context": Context0625,
            "wasi:nn/inference@0.2.0-rc-2024-08-19.graph-execution-context": Context0819,
            "wasi:nn/inference@0.2.0-rc-2024-10-28.graph-execution-context": Context1028,
            "wasinn:nn-ext/describe": super::blocking::wasinn::nn_ext::describe,
            "wasinn:nn-ext/properties": super::blocking::wasinn::nn_ext::properties,
            "wasinn:nn-ext/prompt@0.1.0.context": PromptContext,
            "wasinn:nn-async": super::blocking::wasinn::nn_async,
        }
    );
}
