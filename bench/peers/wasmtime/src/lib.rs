// Only here so that cargo builds the wasmtime-cli dependency; see Cargo.toml.
