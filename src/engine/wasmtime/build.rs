// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! What the engine crate generates at build time:
//! - `$OUT_DIR/include/wasinn_wit_slots.h`: the table's slots, one per function of wasi:nn's and
//!   wasinn:nn-ext's WIT interfaces, and the records they take or give, in C (wit_slots.rs says
//!   how); engine/wit_host_table.h includes it, and scripts/build-engine.sh copies it into the
//!   build tree for the C++ side: the WIT files are the one definition of the table.
//! - `$OUT_DIR/wit_host.rs`: the Rust mirrors of src/engine/wit_host_table.h's types (the table of
//!   functions the C++ side fills, and what its functions take and give), by rust-bindgen from the
//!   header (c_mirrors.rs says how), which host.rs includes.
//! - The WIT enums' case names for the C++ side (wit_host.h passes a case by its WIT name), from
//!   the same WIT files as bindgen! (src/bindings.rs) reads: `$OUT_DIR/wit_cases.rs` holds
//!   `wit_enum_cases!(PACKAGE, VERSION, INTERFACE, ENUM, TYPE)`, which implements `wit_nn::Cases` for
//!   bindgen!'s Rust enum of one WIT enum, with each case as bindgen! names it (heck's upper camel
//!   case, as Wasmtime's generator does) and as the WIT spells it. A case added to a WIT file is in
//!   both at the next build.
use std::fmt::Write;
use std::path::{Path, PathBuf};

use heck::ToUpperCamelCase;
use wit_parser::{Resolve, TypeDefKind, TypeOwner};

mod c_mirrors;
mod wit_slots;

/// wit_host_table.h's types, generated into `$OUT_DIR/wit_host.rs`. `src` is the checkout's src/
/// (or scripts/build-engine.sh's copy of its Rust parts and headers); `include`, the generated
/// wasinn_wit_slots.h's directory (first: a copy elsewhere must not win) and Wasmtime's C API
/// headers, which the headers include; `types`, the C names mirrored.
fn wit_host_mirror<'a>(src: &Path, include: &[PathBuf], types: &'a [&'a str]) -> c_mirrors::Mirror<'a> {
    let mut dirs = vec![src.to_path_buf()];
    dirs.extend(include.iter().cloned());
    c_mirrors::Mirror {
        header: src.join("engine/wit_host_table.h"),
        include: dirs,
        types,
        elsewhere: &[],
        // The kind of resource drop() is told: from Rust to C only. wasinn_wit_status comes back
        // from C: a newtype.
        rust_enums: &["wasinn_wit_resource"],
        variant_prefix: Some("WASINN_WIT_"),
    }
}

/// Every directory below `dir` that holds a WIT package (its `*.wit` files).
fn packages(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    if entries.iter().any(|p| p.extension().is_some_and(|x| x == "wit")) {
        found.push(dir.to_path_buf());
    }
    for p in entries.iter().filter(|p| p.is_dir()) {
        packages(p, found);
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // Wasmtime's C API crate's headers (its build script says where: its `links` key's `include`).
    let wasmtime_include = PathBuf::from(
        std::env::var("DEP_WASMTIME_C_API_INCLUDE").expect("wasmtime-c-api-impl's build script gives its include/"),
    );
    // wit/ beside src/, in the checkout and in scripts/build-engine.sh's copy alike.
    let wit = manifest.join("../../../wit");
    let mut dirs = Vec::new();
    packages(&wit, &mut dirs);
    // wasi:nn's packages first: wasinn's own use them.
    dirs.sort_by_key(|d| !d.starts_with(wit.join("wasi-nn")));
    let mut resolve = Resolve::default();
    for dir in &dirs {
        let (_, sources) = resolve
            .push_path(dir)
            .unwrap_or_else(|e| panic!("parsing the WIT package in {}: {e:?}", dir.display()));
        for file in sources.paths() {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
    println!("cargo:rerun-if-changed={}", wit.display());

    // The table's slots from the WIT, then the Rust mirrors of the header that includes them.
    let slots = wit_slots::generate(&resolve).unwrap_or_else(|e| panic!("wasinn_wit_slots.h: {e}"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let generated = out_dir.join("include");
    std::fs::create_dir_all(&generated).expect("creating $OUT_DIR/include");
    let header = generated.join("wasinn_wit_slots.h");
    // Rewritten only when it changes, so the C++ files that include it rebuild only then.
    if std::fs::read_to_string(&header).ok().as_deref() != Some(slots.header.as_str()) {
        std::fs::write(&header, &slots.header).unwrap_or_else(|e| panic!("writing {}: {e}", header.display()));
    }
    let mut types = vec![
        "wasinn_wit_status",
        "wasinn_wit_resource",
        "wasinn_wit_str",
        "wasinn_wit_bytes",
        "wasinn_wit_named",
        "wasinn_wit_out",
        "wasinn_wit_host",
    ];
    types.extend(slots.records.iter().map(String::as_str));
    wit_host_mirror(&manifest.join("../.."), &[generated, wasmtime_include], &types).write("wit_host.rs");

    let mut arms = String::new();
    for (_, ty) in resolve.types.iter() {
        let (TypeDefKind::Enum(e), TypeOwner::Interface(owner), Some(name)) = (&ty.kind, ty.owner, &ty.name) else {
            continue;
        };
        let iface = &resolve.interfaces[owner];
        let package = &resolve.packages[iface.package.expect("an interface of a package")].name;
        let key = format!(
            "{:?}, {:?}, {:?}",
            format!("{}:{}", package.namespace, package.name),
            package.version.as_ref().map_or(String::new(), |v| v.to_string()),
            iface.name.as_deref().unwrap_or("")
        );
        let cases: String = e
            .cases
            .iter()
            .map(|c| format!("(Self::{}, {:?}), ", c.name.to_upper_camel_case(), c.name))
            .collect();
        writeln!(
            arms,
            "    ({key}, {name:?}, $ty:ty) => {{\n        impl $crate::wit_nn::Cases for $ty {{\n            \
             const ALL: &'static [(Self, &'static str)] = &[{cases}];\n        }}\n    }};"
        )
        .unwrap();
    }
    let out = out_dir.join("wit_cases.rs");
    let text = format!(
        "/// `wit_enum_cases!(PACKAGE, VERSION, INTERFACE, ENUM, TYPE)`: `Cases` for TYPE, \
         bindgen!'s enum of ENUM (generated by build.rs from wit/).\nmacro_rules! wit_enum_cases {{\n{arms}}}\n"
    );
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
