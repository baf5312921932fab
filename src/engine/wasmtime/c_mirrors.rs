// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! How the crates generate their Rust mirrors of the C headers they share with the C++ side, at
//! build time with rust-bindgen: each build.rs (the engine's for wit_host.h, serve/http's for
//! serve_host.h and request_record.h, serve/pipeline's for pipeline_host.h) names its header and
//! the types it mirrors, and includes this file (`#[path]`), so every mirror is made one way:
//! - exactly the listed types, each with bindgen's layout asserts (size, alignment, every field's
//!   offset), named as in C; the crate's code gives them its own names with `pub use ... as`;
//! - a type another header defines (`elsewhere`: wit_host.h's in the serving crates, Wasmtime's
//!   C API's) is not generated again but named, and the including module brings in the one Rust
//!   type there is for it (the engine's, the C API crate's);
//! - a C enum is a newtype over its integer with a const per value, so a value the Rust side does
//!   not know, arriving from C, is a value to handle, never undefined behaviour; one whose values
//!   only go from Rust to C may be a Rust enum (`rust_enums`);
//! - an enumerator drops `variant_prefix` and is upper camel case (`WASINN_WIT_OK`: `Ok`);
//! - a function pointer is `Option<unsafe extern "C" fn ..>` (C lets it be NULL): the engine's
//!   `slot!` (host.rs) calls a table's slot.
//!
//! C fields named by a Rust keyword get bindgen's `_` (`type`: `type_`).
use std::path::PathBuf;

use bindgen::callbacks::{DeriveTrait, EnumVariantValue, ImplementsTrait, ParseCallbacks};

/// One header's mirrors.
pub struct Mirror<'a> {
    pub header: PathBuf,
    /// The directories its `#include`s are found in, in order.
    pub include: Vec<PathBuf>,
    /// The types generated (C names).
    pub types: &'a [&'a str],
    /// Types it uses that another header defines (C names or patterns).
    pub elsewhere: &'a [&'a str],
    /// Enums generated as Rust enums: their values only ever go from Rust to C.
    pub rust_enums: &'a [&'a str],
    /// The enumerators' prefix the Rust names drop; None: the C names.
    pub variant_prefix: Option<&'a str>,
}

/// The enumerators' names (the prefix dropped), and what the other headers' types derive.
#[derive(Debug)]
struct Callbacks(Option<String>);

impl ParseCallbacks for Callbacks {
    /// A type of another header is generated as these are (bindgen's Copy, Clone and Debug), so
    /// a struct that holds one derives them too.
    fn blocklisted_type_implements_trait(&self, _name: &str, derive: DeriveTrait) -> Option<ImplementsTrait> {
        matches!(derive, DeriveTrait::Copy | DeriveTrait::Debug).then_some(ImplementsTrait::Yes)
    }

    fn enum_variant_name(&self, _enum: Option<&str>, name: &str, _value: EnumVariantValue) -> Option<String> {
        let words = name.strip_prefix(self.0.as_deref()?)?;
        Some(
            words
                .split('_')
                .map(|w| {
                    let mut chars = w.chars();
                    chars.next().map_or(String::new(), |c| {
                        c.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
                    })
                })
                .collect(),
        )
    }
}

impl Mirror<'_> {
    /// The generated Rust, or why not (clang's error over the header).
    pub fn generate(&self) -> Result<String, String> {
        let mut builder = bindgen::Builder::default()
            .header(self.header.to_string_lossy())
            .clang_args(self.include.iter().map(|d| format!("-I{}", d.display())))
            .default_enum_style(bindgen::EnumVariation::NewType {
                is_bitfield: false,
                is_global: false,
            })
            .layout_tests(true)
            .formatter(bindgen::Formatter::Prettyplease)
            .parse_callbacks(Box::new(Callbacks(self.variant_prefix.map(str::to_string))))
            // cargo runs the build again when the header, or any it includes, changes.
            .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()));
        for t in self.types {
            builder = builder.allowlist_type(t);
        }
        for t in self.elsewhere {
            builder = builder.blocklist_type(t);
        }
        for e in self.rust_enums {
            builder = builder.rustified_enum(e);
        }
        let bindings = builder
            .generate()
            .map_err(|e| format!("bindgen over {}: {e}", self.header.display()))?;
        Ok(bindings.to_string())
    }

    /// Generates into `$OUT_DIR/NAME`, for the crate's `include!`; a failure ends the build.
    pub fn write(&self, name: &str) {
        let code = self.generate().unwrap_or_else(|e| panic!("{e}"));
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
        std::fs::write(&out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    }
}
