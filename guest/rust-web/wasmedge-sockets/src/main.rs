// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! A wasm32-wasip1 guest on crates.io's `wasmedge_wasi_socket` 0.5.5, the binding WasmEdge's Rust
//! guests (LlamaEdge's llama-api-server among them) use for WasmEdge's socket ABI, so the ABI is
//! checked against the crate's own layouts, not only a hand-written C guest's
//! (tests/cli/sockets_test.cpp):
//!   wasmedge_sockets_rust serve PORT N   listen on 127.0.0.1:PORT, answer N HTTP requests with
//!                                        the request line and the local port, then exit
//!   wasmedge_sockets_rust get PORT PATH  GET PATH from 127.0.0.1:PORT, print the answer's body
//! An error is printed as "error: WHAT: ERROR" with exit status 2.
use std::io::{Read, Write};
use std::process::exit;

use wasmedge_wasi_socket::{Shutdown, TcpListener, TcpStream};

fn fail(what: &str, e: std::io::Error) -> ! {
    println!("error: {what}: {e}");
    exit(2)
}

fn serve(port: u16, count: usize) {
    let listener = TcpListener::bind(("127.0.0.1", port), false).unwrap_or_else(|e| fail("bind", e));
    // Only the port: the crate's local_addr/peer_addr read the IP from a buffer it declares
    // immutable, which rustc folds to 0.0.0.0 whatever the host writes (the C guest checks the IP).
    let local = listener.local_addr().unwrap_or_else(|e| fail("local_addr", e)).port();
    println!("listening on port {local}");
    for _ in 0..count {
        let (mut stream, _) = listener.accept(false).unwrap_or_else(|e| fail("accept", e));
        let mut request = Vec::new();
        let mut buf = [0u8; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).unwrap_or_else(|e| fail("read", e));
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&request);
        let body = format!("{} on port {local}\n", text.lines().next().unwrap_or(""));
        let answer = format!("HTTP/1.0 200 OK\r\ncontent-length: {}\r\n\r\n{body}", body.len());
        stream.write_all(answer.as_bytes()).unwrap_or_else(|e| fail("write", e));
        let _ = stream.shutdown(Shutdown::Both);
    }
    println!("served {count}");
}

fn get(port: u16, path: &str) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| fail("connect", e));
    write!(stream, "GET {path} HTTP/1.0\r\n\r\n").unwrap_or_else(|e| fail("write", e));
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap_or_else(|e| fail("read", e));
    print!("{}", answer.split("\r\n\r\n").nth(1).unwrap_or(""));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port = args.get(2).and_then(|p| p.parse().ok());
    match (args.get(1).map(String::as_str), port) {
        (Some("serve"), Some(port)) => serve(port, args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1)),
        (Some("get"), Some(port)) => get(port, args.get(3).map(String::as_str).unwrap_or("/")),
        _ => {
            println!("usage: wasmedge_sockets_rust serve PORT N | get PORT PATH");
            exit(2)
        }
    }
}
