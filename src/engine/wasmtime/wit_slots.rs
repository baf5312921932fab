// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The slots of wit_host_table.h's table, generated from the WIT files at build time (build.rs
//! writes `$OUT_DIR/include/wasinn_wit_slots.h`, which the table's header includes and
//! build-engine.sh copies for the C++ side): one slot per function of the interfaces the table
//! serves (wasi:nn's and wasinn:nn-ext's), so a function added to a `.wit` file is a slot the
//! Rust side can call and the C++ side must fill, with no signature written by hand.
//!
//! How a function becomes a slot, by fixed rules (a shape no rule covers fails the build, naming
//! the function):
//! - its name: the resource's name (or, for a free function, the interface's), then the
//!   function's (a constructor's is `new`), in snake case: `[method]tensor.dimensions` is
//!   `tensor_dimensions`, `graph.load-by-name` is `graph_load_by_name`;
//! - `void* guest` first and `wasinn_wit_out* out` last; between them each parameter (a method's
//!   own resource first, named after it): a handle is its `uint32_t` rep, a string or an enum's
//!   case name a `wasinn_wit_str`, a `list<u8>` a `wasinn_wit_bytes`, a list of anything else
//!   a pointer and a `_len`, a `tuple<string, handle>` a `wasinn_wit_named`, a record the
//!   struct generated for it (its fields by the same rules; an option a `has_` flag before);
//! - the result comes back in `out` (the comment above each slot says where); the status is
//!   wit_host.h's;
//! - versions whose lowering agrees share one slot; a version whose lowering differs from the
//!   first's gets its parameters' names appended (10-28's compute: `..._compute_inputs`).
use std::fmt::Write;

use heck::ToSnakeCase;
use wit_parser::{Function, FunctionKind, Handle, Interface, Param, Resolve, Type, TypeDefKind, TypeId};

/// The packages whose interfaces' functions are the table's (nn-async and Spin's llm are built
/// over them in Rust).
pub const SERVED: &[&str] = &["wasi:nn", "wasinn:nn-ext"];

/// One slot: its declaration and the WIT functions it serves.
struct Slot {
    name: String,
    /// The C parameters between `guest` and `out`.
    params: Vec<String>,
    /// What `out` carries back.
    out: String,
    /// The WIT functions served: `package/interface` and `[kind]function(params) -> result` with
    /// the versions that have it.
    serves: Vec<(String, String, Vec<String>)>,
}

/// The generated header and the C names of the records it defines (for the Rust mirrors).
pub struct Generated {
    pub header: String,
    pub records: Vec<String>,
}

struct Lowering<'a> {
    resolve: &'a Resolve,
    /// Record structs in the order first met: the WIT type, the C name and the definition.
    records: Vec<(TypeId, String, String)>,
}

fn c_ident(wit: &str) -> String {
    wit.to_snake_case()
}

/// A method's implicit first parameter, its own resource.
fn is_self(f: &Function, p: &Param) -> bool {
    matches!(f.kind, FunctionKind::Method(_)) && p.name == "self"
}

impl Lowering<'_> {
    /// A type as the WIT spells it (named types by name).
    fn wit(&self, ty: &Type) -> String {
        match ty {
            Type::Id(id) => {
                let def = &self.resolve.types[*id];
                if let Some(name) = &def.name {
                    return name.clone();
                }
                match &def.kind {
                    TypeDefKind::List(t) => format!("list<{}>", self.wit(t)),
                    TypeDefKind::Option(t) => format!("option<{}>", self.wit(t)),
                    TypeDefKind::Handle(Handle::Own(r)) => self.wit(&Type::Id(*r)),
                    TypeDefKind::Handle(Handle::Borrow(r)) => format!("borrow<{}>", self.wit(&Type::Id(*r))),
                    TypeDefKind::Tuple(t) => {
                        format!(
                            "tuple<{}>",
                            t.types.iter().map(|t| self.wit(t)).collect::<Vec<_>>().join(", ")
                        )
                    }
                    TypeDefKind::Result(r) => format!(
                        "result<{}, {}>",
                        r.ok.as_ref().map_or("_".into(), |t| self.wit(t)),
                        r.err.as_ref().map_or("_".into(), |t| self.wit(t))
                    ),
                    other => format!("{other:?}"),
                }
            }
            other => format!("{other:?}").to_lowercase(),
        }
    }

    /// The type behind aliases.
    fn kind(&self, ty: &Type) -> Option<(TypeId, &TypeDefKind)> {
        match ty {
            Type::Id(id) => match &self.resolve.types[*id].kind {
                TypeDefKind::Type(t) => self.kind(t),
                kind => Some((*id, kind)),
            },
            _ => None,
        }
    }

    fn is_handle(&self, ty: &Type) -> bool {
        matches!(self.kind(ty), Some((_, TypeDefKind::Handle(_) | TypeDefKind::Resource)))
    }

    /// The one C type of a value that fits in one (or None).
    fn scalar(&mut self, ty: &Type) -> Result<Option<String>, String> {
        let c = match ty {
            Type::Bool => "bool",
            Type::U8 => "uint8_t",
            Type::U16 => "uint16_t",
            Type::U32 => "uint32_t",
            Type::U64 => "uint64_t",
            Type::S8 => "int8_t",
            Type::S16 => "int16_t",
            Type::S32 => "int32_t",
            Type::S64 => "int64_t",
            Type::F32 => "float",
            Type::F64 => "double",
            Type::String => "wasinn_wit_str",
            Type::Char | Type::ErrorContext => return Ok(None),
            Type::Id(_) => {
                let Some((id, kind)) = self.kind(ty) else {
                    return Ok(None);
                };
                return Ok(match kind {
                    TypeDefKind::Handle(_) | TypeDefKind::Resource => Some("uint32_t".into()),
                    TypeDefKind::Enum(_) => Some("wasinn_wit_str".into()),
                    TypeDefKind::List(Type::U8) => Some("wasinn_wit_bytes".into()),
                    TypeDefKind::Tuple(t)
                        if t.types.len() == 2 && t.types[0] == Type::String && self.is_handle(&t.types[1]) =>
                    {
                        Some("wasinn_wit_named".into())
                    }
                    TypeDefKind::Record(_) => Some(self.record(id)?),
                    _ => None,
                });
            }
        };
        Ok(Some(c.into()))
    }

    /// C declarations (`TYPE NAME`) of one value named `name`: one, or a pointer and a length.
    fn lower(&mut self, ty: &Type, name: &str) -> Result<Vec<String>, String> {
        if let Some(c) = self.scalar(ty)? {
            return Ok(vec![format!("{c} {name}")]);
        }
        if let Some((_, TypeDefKind::List(inner))) = self.kind(ty) {
            let inner = *inner;
            if let Some(c) = self.scalar(&inner)? {
                return Ok(vec![format!("const {c}* {name}"), format!("size_t {name}_len")]);
            }
        }
        Err(format!("{name}: {}", self.wit(ty)))
    }

    /// The struct generated for a record: its C name (defined once, on first use).
    fn record(&mut self, id: TypeId) -> Result<String, String> {
        let def = &self.resolve.types[id];
        let TypeDefKind::Record(record) = &def.kind else {
            unreachable!()
        };
        let wit_name = def.name.clone().unwrap_or_default();
        let c_name = format!("wasinn_wit_{}", c_ident(&wit_name));
        match self.records.iter().find(|(_, n, _)| *n == c_name) {
            Some((seen, _, _)) if *seen == id => return Ok(c_name),
            Some(_) => {
                return Err(format!(
                    "two records named {wit_name}: their C structs would share a name"
                ))
            }
            None => {}
        }
        let mut fields = String::new();
        for field in record.fields.clone() {
            let name = c_ident(&field.name);
            let mut ty = field.ty;
            let mut note = format!("{}: {}", field.name, self.wit(&ty));
            if let Some((_, TypeDefKind::Option(inner))) = self.kind(&ty) {
                writeln!(fields, "  bool has_{name}; /* {note}: false: none */").unwrap();
                ty = *inner;
                note = String::new();
            }
            let decls = self
                .lower(&ty, &name)
                .map_err(|e| format!("record {wit_name}, field {e}"))?;
            for (k, d) in decls.iter().enumerate() {
                let comment = if k == 0 && !note.is_empty() {
                    format!(" /* {note} */")
                } else {
                    String::new()
                };
                writeln!(fields, "  {d};{comment}").unwrap();
            }
        }
        let text = format!(
            "/* {}'s record {wit_name} */\ntypedef struct {c_name} {{\n{fields}}} {c_name};\n",
            self.owner_of(id)
        );
        self.records.push((id, c_name.clone(), text));
        Ok(c_name)
    }

    /// `package/interface@version` of a type's interface.
    fn owner_of(&self, id: TypeId) -> String {
        match self.resolve.types[id].owner {
            wit_parser::TypeOwner::Interface(i) => self.resolve.id_of(i).unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// Where `out` carries the value of `ty`, a function's OK value.
    fn out(&mut self, ty: Option<&Type>, what: &str) -> Result<String, String> {
        let Some(ty) = ty else { return Ok("nothing".into()) };
        if self.is_handle(ty) {
            return Ok(format!("out->rep, the {}", self.wit(ty)));
        }
        match self.kind(ty) {
            Some((_, TypeDefKind::Option(inner))) => {
                let inner = *inner;
                return Ok(format!("out->rep 1 and {}, or 0: none", self.out(Some(&inner), what)?));
            }
            Some((_, TypeDefKind::Enum(_))) => return Ok("out->data, the case name's chars[len]".into()),
            Some((_, TypeDefKind::List(Type::U8))) => return Ok("out->data, bytes[len]".into()),
            Some((_, TypeDefKind::List(inner))) => {
                let inner = *inner;
                if let Some(c) = self.scalar(&inner)? {
                    return Ok(format!("out->data, {c}[len]"));
                }
            }
            _ => {}
        }
        match ty {
            Type::String => Ok("out->data, chars[len]".into()),
            _ => Err(format!("{what}: {}", self.wit(ty))),
        }
    }

    /// What a function's result comes back as: OK's, and ERR's if it has an error.
    fn result(&mut self, f: &Function) -> Result<String, String> {
        let what = "the result";
        if let Some((_, TypeDefKind::Result(r))) = f.result.as_ref().and_then(|t| self.kind(t)) {
            let (ok, err) = (r.ok, r.err);
            let ok = self.out(ok.as_ref(), what)?;
            let err = match err {
                Some(e) if self.is_handle(&e) => format!("out->rep, the {}", self.wit(&e)),
                Some(Type::String) => "out->message".into(),
                Some(e) => return Err(format!("{what}'s error: {}", self.wit(&e))),
                None => "nothing".into(),
            };
            return Ok(format!("OK: {ok}; ERR: {err}"));
        }
        Ok(format!("OK: {}", self.out(f.result.as_ref(), what)?))
    }

    /// The WIT function: its interface (`package/interface`), version, and itself (its name,
    /// parameters and result).
    fn signature(&self, iface: &Interface, f: &Function) -> (String, String, String) {
        let package = &self.resolve.packages[iface.package.expect("an interface of a package")].name;
        let params: Vec<String> = f
            .params
            .iter()
            .filter(|p| !is_self(f, p))
            .map(|p| format!("{}: {}", p.name, self.wit(&p.ty)))
            .collect();
        let result = f
            .result
            .as_ref()
            .map_or(String::new(), |t| format!(" -> {}", self.wit(t)));
        (
            format!(
                "{}:{}/{}",
                package.namespace,
                package.name,
                iface.name.as_deref().unwrap_or("")
            ),
            package.version.as_ref().map_or(String::new(), |v| v.to_string()),
            format!("{}({}){}", f.name, params.join(", "), result),
        )
    }
}

/// The slots of every function of the served packages' interfaces, and the records they use.
pub fn generate(resolve: &Resolve) -> Result<Generated, String> {
    let mut lowering = Lowering {
        resolve,
        records: Vec::new(),
    };
    let mut slots: Vec<Slot> = Vec::new();
    for (_, iface) in resolve.interfaces.iter() {
        let Some(package) = iface.package.map(|p| &resolve.packages[p].name) else {
            continue;
        };
        if !SERVED.contains(&format!("{}:{}", package.namespace, package.name).as_str()) {
            continue;
        }
        for f in iface.functions.values() {
            let (at, version, function_text) = lowering.signature(iface, f);
            let line = format!("{at}@{version} {function_text}");
            if f.kind.is_async() {
                return Err(format!("{line}: an async function; the table serves synchronous ones"));
            }
            let owner = match f.kind.resource() {
                Some(r) => resolve.types[r].name.clone().unwrap_or_default(),
                None => iface.name.clone().unwrap_or_default(),
            };
            let function = match f.kind {
                FunctionKind::Constructor(_) => "new",
                _ => f.item_name(),
            };
            let base = format!("{}_{}", c_ident(&owner), c_ident(function));
            let mut params = Vec::new();
            let mut names = Vec::new();
            for p in &f.params {
                let name = if is_self(f, p) {
                    c_ident(&owner)
                } else {
                    names.push(c_ident(&p.name));
                    c_ident(&p.name)
                };
                params.extend(
                    lowering
                        .lower(&p.ty, &name)
                        .map_err(|e| format!("{line}: parameter {e}"))?,
                );
            }
            let out = lowering.result(f).map_err(|e| format!("{line}: {e}"))?;
            let mut name = base.clone();
            loop {
                match slots.iter_mut().find(|s| s.name == name) {
                    Some(s) if s.params == params && s.out == out => {
                        match s.serves.iter_mut().find(|(a, t, _)| *a == at && *t == function_text) {
                            Some((_, _, versions)) => versions.push(version),
                            None => s.serves.push((at, function_text, vec![version])),
                        }
                        break;
                    }
                    Some(_) if name == base && !names.is_empty() => name = format!("{base}_{}", names.join("_")),
                    Some(_) => {
                        return Err(format!(
                            "{line}: its slot {name} would differ from the one another version has; \
                             rename a parameter"
                        ))
                    }
                    None => {
                        slots.push(Slot {
                            name,
                            params,
                            out,
                            serves: vec![(at, function_text, vec![version])],
                        });
                        break;
                    }
                }
            }
        }
    }
    Ok(Generated {
        header: header(&slots, &lowering.records),
        records: lowering.records.iter().map(|(_, n, _)| n.clone()).collect(),
    })
}

fn header(slots: &[Slot], records: &[(TypeId, String, String)]) -> String {
    let mut h = String::from(
        "/* Generated from wit/ by src/engine/wasmtime/build.rs (wit_slots.rs says how): do not edit.\n \
         * The records and table slots of engine/wit_host_table.h, one slot per WIT function. */\n\
         #ifndef WASINN_WIT_SLOTS_H\n#define WASINN_WIT_SLOTS_H\n\n",
    );
    for (_, _, text) in records {
        h.push_str(text);
        h.push('\n');
    }
    h.push_str("#define WASINN_WIT_SLOTS \\\n");
    for s in slots {
        for (at, function, versions) in &s.serves {
            writeln!(h, "  /* {at}@{} {function} */ \\", versions.join(",")).unwrap();
        }
        writeln!(h, "  /* {} */ \\", s.out).unwrap();
        let mut params = vec!["void* guest".to_string()];
        params.extend(s.params.iter().cloned());
        params.push("wasinn_wit_out* out".into());
        writeln!(h, "  wasinn_wit_status (*{})({}); \\", s.name, params.join(", ")).unwrap();
    }
    h.push_str("  /* end of WASINN_WIT_SLOTS */\n\n#endif\n");
    h
}
