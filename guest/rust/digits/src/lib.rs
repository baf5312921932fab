// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The classification every Rust compatibility guest runs: the 450 held-out digits of the
//! fixtures, one row per inference, with the answer printed in a form the tests check against
//! native ONNX Runtime. Knows nothing of wasi-nn: each guest passes a closure that runs one row
//! through its own crate version.
//!
//! Arguments shared by all guests:
//!   --model FILE | --name NAME   the model as bytes (load) or by name (load_by_name...)
//!   --x FILE --y FILE            features (450x64) and labels (450 u8)
//!   --u8                         features are u8 (raw pixel values 0-16), else f32
//!   --config JSON --cycles N     used by the WasmEdge guests only
//! Output lines: "library: ...", "tensor type sent: N", "predictions: <one digit per row>",
//! "accuracy: C/T", "logits0: <10 values of row 0>".

use std::fmt::Debug;
use std::process::exit;

pub const FEATURES: usize = 64;
pub const CLASSES: usize = 10;

pub enum ModelRef {
    File(String),
    Name(String),
}

pub struct Args {
    pub model: ModelRef,
    pub x_path: String,
    pub y_path: String,
    pub input_u8: bool,
    pub config: Option<String>,
    pub cycles: u32,
}

/// One row of features as the guest sends it.
pub enum Row<'a> {
    F32(&'a [f32]),
    U8(&'a [u8]),
}

pub fn fail(msg: &str) -> ! {
    eprintln!("{}", msg);
    exit(1)
}

/// Unwraps a wasi-nn result or exits naming the step, so a test failure shows what broke.
pub fn check<T, E: Debug>(step: &str, r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => fail(&format!("error in {}: {:?}", step, e)),
    }
}

impl Args {
    pub fn parse() -> Args {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let (mut model, mut x, mut y, mut input_u8, mut config, mut cycles) = (None, None, None, false, None, 0);
        let mut i = 0;
        while i < argv.len() {
            let value = || {
                argv.get(i + 1)
                    .cloned()
                    .unwrap_or_else(|| fail(&format!("{} needs a value", argv[i])))
            };
            match argv[i].as_str() {
                "--model" => model = Some(ModelRef::File(value())),
                "--name" => model = Some(ModelRef::Name(value())),
                "--x" => x = Some(value()),
                "--y" => y = Some(value()),
                "--config" => config = Some(value()),
                "--cycles" => cycles = value().parse().unwrap_or_else(|_| fail("--cycles needs a number")),
                "--u8" => {
                    input_u8 = true;
                    i += 1;
                    continue;
                }
                other => fail(&format!("unknown argument {}", other)),
            }
            i += 2;
        }
        Args {
            model: model.unwrap_or_else(|| fail("give --model FILE or --name NAME")),
            x_path: x.unwrap_or_else(|| fail("give --x FILE")),
            y_path: y.unwrap_or_else(|| fail("give --y FILE")),
            input_u8,
            config,
            cycles,
        }
    }
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| fail(&format!("cannot read {}: {}", path, e)))
}

pub struct Digits {
    f32_rows: Vec<f32>,
    u8_rows: Vec<u8>,
    labels: Vec<u8>,
}

impl Digits {
    pub fn load(args: &Args) -> Digits {
        let labels = read(&args.y_path);
        let x = read(&args.x_path);
        let width = if args.input_u8 { 1 } else { 4 };
        if x.len() != labels.len() * FEATURES * width {
            fail(&format!(
                "{} holds {} bytes, expected {} rows of {} features",
                args.x_path,
                x.len(),
                labels.len(),
                FEATURES
            ));
        }
        let mut d = Digits {
            f32_rows: Vec::new(),
            u8_rows: Vec::new(),
            labels,
        };
        if args.input_u8 {
            d.u8_rows = x;
        } else {
            d.f32_rows = x
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
        }
        d
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn row(&self, i: usize) -> Row<'_> {
        let r = i * FEATURES..(i + 1) * FEATURES;
        if self.u8_rows.is_empty() {
            Row::F32(&self.f32_rows[r])
        } else {
            Row::U8(&self.u8_rows[r])
        }
    }
}

pub fn argmax(logits: &[f32]) -> usize {
    let mut best = 0;
    for k in 1..logits.len() {
        if logits[k] > logits[best] {
            best = k;
        }
    }
    best
}

/// Classifies every row with `infer` (row -> 10 logits) and prints the report; exits on the
/// first error, naming it.
pub fn classify_and_report<F>(digits: &Digits, mut infer: F)
where
    F: FnMut(Row<'_>) -> Result<Vec<f32>, String>,
{
    let mut predictions = String::with_capacity(digits.len());
    let mut correct = 0;
    let mut first = Vec::new();
    for i in 0..digits.len() {
        let logits = infer(digits.row(i)).unwrap_or_else(|e| fail(&format!("error in row {}: {}", i, e)));
        if logits.len() != CLASSES {
            fail(&format!("row {}: {} logits, expected {}", i, logits.len(), CLASSES));
        }
        let p = argmax(&logits);
        predictions.push(char::from(b'0' + p as u8));
        correct += (p == usize::from(digits.labels[i])) as usize;
        if i == 0 {
            first = logits;
        }
    }
    println!("predictions: {}", predictions);
    println!("accuracy: {}/{}", correct, digits.len());
    let first: Vec<String> = first.iter().map(|v| format!("{:.6}", v)).collect();
    println!("logits0: {}", first.join(" "));
}

/// Reinterprets an output byte count as logits; wasi-nn crates copy into a caller buffer.
pub fn logits_from(buf: &[f32], bytes: usize) -> Result<Vec<f32>, String> {
    if bytes != CLASSES * 4 {
        return Err(format!("get_output wrote {} bytes, expected {}", bytes, CLASSES * 4));
    }
    Ok(buf[..CLASSES].to_vec())
}
