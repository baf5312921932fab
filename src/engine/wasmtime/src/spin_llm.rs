// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! Spin's `fermyon:spin/llm@2.0.0` (spin-sdk's `llm` module: `infer`, `generate-embeddings`) as
//! typed host functions, served to any component beside wasi:nn: a Spin app's model name is a
//! named model the user preloaded (`--nn-preload NAME:ggml:...`), loaded with `load_by_name`.
//! A call makes a context as wasinn:nn-ext's prompt interface does (nn_ext.rs: a text model's
//! only), sets the infer-params as the llama.cpp plugin's context properties through it, and
//! computes the prompt as a wasi:nn guest would (a U8 tensor "prompt" in, "text" and "metadata"
//! out); an embedding is the plugin's ("embedding": true, as a wasi:nn guest asks for one).
//! Token counts are the plugin's own, from its metadata output. Every rule is the C++ side's,
//! through the same `WitHost` table; the host trait and types are bindgen!'s, from wit/fermyon-spin.
//!
//! Other Spin interfaces (`fermyon:spin/*`, `spin:*`) are not served: `check_imports` names them
//! when a component is loaded, before anything runs.
use wasmtime::component::Component;
use wasmtime::{format_err, Engine, Result};

/// The one Spin interface served, and the version its WIT has.
pub const LLM: &str = "fermyon:spin/llm@2.0.0";

/// An unsigned integer field of a flat JSON object (the plugin's metadata), else 0.
fn json_count(text: &str, key: &str) -> u32 {
    let quoted = format!("\"{key}\"");
    let Some(at) = text.find(&quoted) else { return 0 };
    let rest = text[at + quoted.len()..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else { return 0 };
    let digits: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(0)
}

/// Spin's llm host for one expansion of bindings.rs (`$mode`, its module `$m`): each expansion has
/// Rust types of its own for the interface's records and variant, so all that makes or reads them
/// is written here once and expanded for both below. Both functions are long calls.
macro_rules! llm_host {
    ($mode:ident, $($m:ident)::+) => {
        use wasmtime::Result;

        pub(super) use $($m)::+::fermyon::spin::llm::Error as LlmError;
        use $($m)::+::fermyon::spin::llm::{
            self, EmbeddingsResult, EmbeddingsUsage, InferencingParams, InferencingResult, InferencingUsage,
        };
        use super::json_count;
        use crate::host::*;
        // One expansion uses in_place, the other run_off_thread (long_fn!).
        #[allow(unused_imports)]
        use crate::long_call::{in_place, long_fn, off_thread as run_off_thread};
        use crate::wit_nn::{Access, Nn, NnStore};

        type Answer<R> = std::result::Result<R, LlmError>;

        /// A wasi:nn failure as Spin's error: its case decides which (a name no preload has is
        /// `model-not-supported`; a value the plugin refuses is `invalid-input`).
        pub(super) fn llm_error(code: &str, detail: &str) -> LlmError {
            let text = if detail.is_empty() {
                code.to_string()
            } else {
                format!("{code}: {detail}")
            };
            match code {
                "not-found" => LlmError::ModelNotSupported,
                "invalid-argument" | "too-large" => LlmError::InvalidInput(text),
                _ => LlmError::RuntimeError(text),
            }
        }

        /// The table's calls for one guest: every handle made is dropped when this ends, whatever path
        /// it takes; a failure is a Spin error value, never a trap (a TRAP of the table, which only a bug
        /// of this file could cause, is a runtime-error too).
        struct Calls {
            host: WitHost,
            guest: Guest,
            owned: Vec<(WitResource, u32)>,
        }

        impl Drop for Calls {
            fn drop(&mut self) {
                for &(kind, rep) in self.owned.iter().rev() {
                    let mut out = WitOut::default();
                    // SAFETY: the table's contract; `rep` is a handle this call made and still owns.
                    let _ = unsafe { slot!(self.host, drop)(self.guest, kind, rep, &mut out) };
                }
            }
        }

        impl Calls {
            fn new(host: WitHost, guest: Guest) -> Calls {
                Calls {
                    host,
                    guest,
                    owned: Vec::new(),
                }
            }

            /// A wasi:nn function's status: OK, or its error resource read and dropped.
            fn nn(&self, status: WitStatus, out: &WitOut, what: &str) -> Answer<()> {
                match status {
                    WitStatus::Ok => Ok(()),
                    // SAFETY: the table's promise for TRAP.
                    WitStatus::Trap => Err(LlmError::RuntimeError(format!("{what}: {}", unsafe {
                        out.message.to_string_lossy()
                    }))),
                    WitStatus::Err => {
                        let rep = out.rep;
                        let read = |f: unsafe extern "C" fn(Guest, u32, *mut WitOut) -> WitStatus| {
                            let mut o = WitOut::default();
                            // SAFETY: the table's contract; the error's case or data come back as chars.
                            match unsafe { f(self.guest, rep, &mut o) } {
                                WitStatus::Ok => String::from_utf8_lossy(unsafe { o.slice::<u8>() }).into_owned(),
                                _ => String::new(),
                            }
                        };
                        let code = read(slot!(self.host, error_code));
                        let data = read(slot!(self.host, error_data));
                        let mut o = WitOut::default();
                        // SAFETY: the error resource was made for this call and nothing else holds it.
                        let _ = unsafe { slot!(self.host, drop)(self.guest, WitResource::Error, rep, &mut o) };
                        Err(llm_error(&code, &data))
                    }
                    unknown => Err(LlmError::RuntimeError(format!("{what}: {}", unknown.unknown()))),
                }
            }

            /// A prompt function's status: its errors are text, "case: detail".
            fn text(&self, status: WitStatus, out: &WitOut) -> Answer<()> {
                match status {
                    WitStatus::Ok => Ok(()),
                    // SAFETY: the table's promise for the prompt functions' ERR and for TRAP.
                    WitStatus::Err | WitStatus::Trap => {
                        let message = unsafe { out.message.to_string_lossy() };
                        let (code, detail) = message.split_once(": ").unwrap_or((message.as_str(), ""));
                        Err(llm_error(code, detail))
                    }
                    unknown => Err(LlmError::RuntimeError(unknown.unknown())),
                }
            }

            fn load(&mut self, model: &str) -> Answer<u32> {
                let mut out = WitOut::default();
                // SAFETY: the table's contract.
                let status = unsafe { slot!(self.host, graph_load_by_name)(self.guest, WitStr::of(model), &mut out) };
                self.nn(status, &out, "load-by-name")?;
                self.owned.push((WitResource::Graph, out.rep));
                Ok(out.rep)
            }

            /// A prompt context on the graph; a graph that is no text model is `model-not-supported`.
            fn prompt_context(&mut self, graph: u32) -> Answer<u32> {
                let mut out = WitOut::default();
                let status = unsafe { slot!(self.host, prompt_init)(self.guest, graph, &mut out) };
                self.text(status, &out).map_err(|e| match e {
                    LlmError::RuntimeError(m) if m.starts_with("unsupported-operation") => LlmError::ModelNotSupported,
                    other => other,
                })?;
                self.owned.push((WitResource::Context, out.rep));
                Ok(out.rep)
            }

            fn set(&self, context: u32, name: &str, value: &str) -> Answer<()> {
                let mut out = WitOut::default();
                let status = unsafe {
                    slot!(self.host, context_set_property)(
                        self.guest,
                        context,
                        WitStr::of(name),
                        WitStr::of(value),
                        &mut out,
                    )
                };
                self.text(status, &out)
            }

            /// One compute of the prompt on the context: the bytes of the plugin's output "text" (the
            /// answer, or an embedding's f32s) and its token counts (output "metadata":
            /// `{"input_tokens": N, "output_tokens": M, ...}`; 0 where a backend gives none).
            fn compute(&self, context: u32, prompt: &str) -> Answer<(Vec<u8>, u32, u32)> {
                let mut out = WitOut::default();
                let dims = [prompt.len().min(u32::MAX as usize) as u32];
                let bytes = WitBytes {
                    data: prompt.as_ptr(),
                    len: prompt.len(),
                };
                // SAFETY: the table's contract; `dims` and `bytes` are borrowed for the call.
                let status = unsafe {
                    slot!(self.host, tensor_new)(self.guest, dims.as_ptr(), 1, WitStr::of("U8"), bytes, &mut out)
                };
                self.nn(status, &out, "tensor")?;
                // The input is consumed by compute, whatever its outcome.
                let input = [WitNamed {
                    name: WitStr::of("prompt"),
                    tensor: out.rep,
                }];
                let mut out = WitOut::default();
                let compute = slot!(self.host, graph_execution_context_compute_inputs);
                let status = unsafe { compute(self.guest, context, input.as_ptr(), 1, &mut out) };
                self.nn(status, &out, "compute")?;
                // SAFETY: `len` named outputs, each a new tensor this call owns; copied before the next call.
                let outputs: Vec<(String, u32)> = unsafe { out.slice::<WitNamed>() }
                    .iter()
                    .map(|n| (unsafe { n.name.to_string_lossy() }, n.tensor))
                    .collect();
                let mut text = None;
                let mut metadata = String::new();
                for (name, tensor) in &outputs {
                    let mut data = WitOut::default();
                    if unsafe { slot!(self.host, tensor_data)(self.guest, *tensor, &mut data) } == WitStatus::Ok {
                        let bytes = unsafe { data.slice::<u8>() };
                        match name.as_str() {
                            "text" => text = Some(bytes.to_vec()),
                            "metadata" => metadata = String::from_utf8_lossy(bytes).into_owned(),
                            _ => {}
                        }
                    }
                    let mut o = WitOut::default();
                    let _ = unsafe { slot!(self.host, drop)(self.guest, WitResource::Tensor, *tensor, &mut o) };
                }
                let text = text.ok_or_else(|| LlmError::RuntimeError("the model gave no output named 'text'".to_string()))?;
                Ok((
                    text,
                    json_count(&metadata, "input_tokens"),
                    json_count(&metadata, "output_tokens"),
                ))
            }
        }

        /// What Spin's own host infers with when an app gives no infer-params (spin-sdk's
        /// `InferencingParams::default()` too): 100 tokens at most, sampled.
        const SPIN_DEFAULTS: InferencingParams = InferencingParams {
            max_tokens: 100,
            repeat_penalty: 1.1,
            repeat_penalty_last_n_token_count: 64,
            temperature: 0.8,
            top_k: 40,
            top_p: 0.9,
        };

        /// infer-params as the llama.cpp plugin's context properties (backends/llamacpp/config.cpp);
        /// the plugin checks each value (a top-p above 1 is `invalid-input`).
        fn properties(p: &InferencingParams) -> [(&'static str, String); 6] {
            [
                // "the backing implementation may return less tokens" (the WIT): a bound past the
                // plugin's (i32) is the plugin's.
                ("n-predict", p.max_tokens.min(i32::MAX as u32).to_string()),
                ("temp", p.temperature.to_string()),
                ("top-k", p.top_k.to_string()),
                ("top-p", p.top_p.to_string()),
                ("repeat-penalty", p.repeat_penalty.to_string()),
                ("repeat-last-n", p.repeat_penalty_last_n_token_count.to_string()),
            ]
        }

        fn infer(mut calls: Calls, model: &str, prompt: &str, params: Option<InferencingParams>) -> Answer<InferencingResult> {
            let graph = calls.load(model)?;
            let context = calls.prompt_context(graph)?;
            let p = params.unwrap_or(SPIN_DEFAULTS);
            if !(p.temperature.is_finite() && p.top_p.is_finite() && p.repeat_penalty.is_finite()) {
                return Err(LlmError::InvalidInput(
                    "temperature, top-p and repeat-penalty must be finite numbers".to_string(),
                ));
            }
            for (name, value) in properties(&p) {
                calls.set(context, name, &value)?;
            }
            // WIT's string is UTF-8: a token that ends inside a character comes back as U+FFFD.
            let (bytes, prompt_token_count, generated_token_count) = calls.compute(context, prompt)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Ok(InferencingResult {
                text,
                usage: InferencingUsage {
                    prompt_token_count,
                    generated_token_count,
                },
            })
        }

        fn embeddings(mut calls: Calls, model: &str, texts: &[String]) -> Answer<EmbeddingsResult> {
            let graph = calls.load(model)?;
            let context = calls.prompt_context(graph)?;
            calls.set(context, "embedding", "true")?;
            calls.set(context, "embedding-output", "f32")?;
            let mut embeddings = Vec::with_capacity(texts.len());
            let mut prompt_token_count: u32 = 0;
            for text in texts {
                let (bytes, tokens, _) = calls.compute(context, text)?;
                if bytes.len() % 4 != 0 {
                    return Err(LlmError::RuntimeError(format!(
                        "the model's embedding is {} bytes, not f32 values",
                        bytes.len()
                    )));
                }
                embeddings.push(
                    bytes
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                );
                prompt_token_count = prompt_token_count.saturating_add(tokens);
            }
            Ok(EmbeddingsResult {
                embeddings,
                usage: EmbeddingsUsage { prompt_token_count },
            })
        }

        type Infer = (String, String, Option<InferencingParams>);

        fn infer_work(host: WitHost, guest: Guest, (model, prompt, params): Infer) -> Result<Answer<InferencingResult>> {
            Ok(infer(Calls::new(host, guest), &model, &prompt, params))
        }

        fn embeddings_work(host: WitHost, guest: Guest, (model, texts): (String, Vec<String>)) -> Result<Answer<EmbeddingsResult>> {
            Ok(embeddings(Calls::new(host, guest), &model, &texts))
        }

        impl llm::Host for Nn {}
        impl<T: NnStore> llm::HostWithStore<T> for Nn {
            long_fn!($mode, "infer",
                fn infer(host, model: String, prompt: String, params: Option<InferencingParams>)
                    -> Answer<InferencingResult>,
                None, (model, prompt, params), infer_work);
            long_fn!($mode, "generate-embeddings",
                fn generate_embeddings(host, model: String, text: Vec<String>) -> Answer<EmbeddingsResult>,
                None, (model, text), embeddings_work);
        }
    };
}

mod blocking {
    llm_host!(blocking, crate::bindings::blocking);
}

mod off_thread {
    llm_host!(off_thread, crate::bindings::off_thread);
}

#[cfg(test)]
use blocking::{llm_error, LlmError};

/// Whether an import is one of Spin's interfaces that wasinn does not serve.
fn refused(name: &str) -> bool {
    let spin = name.starts_with("fermyon:spin/") || name.starts_with("spin:");
    // A later 2.0.x of the llm interface is matched to 2.0.0 by the linker, as WASI's are.
    spin && !name.starts_with("fermyon:spin/llm@2.0.")
}

/// Refuses a component that imports Spin interfaces other than the llm one, naming each: without
/// this it would fail to instantiate with Wasmtime's message about the first missing import.
pub fn check_imports(engine: &Engine, component: &Component) -> Result<()> {
    let names: Vec<String> = component
        .component_type()
        .imports(engine)
        .map(|(name, _)| name.to_string())
        .filter(|name| refused(name))
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    Err(format_err!(
        "the component imports Spin interface{} that wasinn does not serve: {}; of Spin's interfaces wasinn \
         serves only {LLM}",
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    ))
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn spin_imports_other_than_llm_are_refused() {
        assert!(!refused("fermyon:spin/llm@2.0.0"));
        assert!(!refused("wasi:http/types@0.2.6"));
        assert!(refused("fermyon:spin/key-value@2.0.0"));
        assert!(refused("fermyon:spin/llm"));
        assert!(refused("spin:postgres/postgres@4.0.0"));
    }

    #[test]
    fn counts_come_from_the_metadata() {
        let m = "{\"input_tokens\": 17, \"output_tokens\": 24, \"llama_build_number\": 1}";
        assert_eq!(json_count(m, "input_tokens"), 17);
        assert_eq!(json_count(m, "output_tokens"), 24);
        assert_eq!(json_count(m, "missing"), 0);
    }

    #[test]
    fn errors_map_onto_spins_cases() {
        assert_eq!(llm_error("not-found", "x"), LlmError::ModelNotSupported);
        assert_eq!(
            llm_error("invalid-argument", "x"),
            LlmError::InvalidInput("invalid-argument: x".into())
        );
        assert_eq!(
            llm_error("runtime-error", ""),
            LlmError::RuntimeError("runtime-error".into())
        );
    }
}
