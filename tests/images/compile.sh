# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by tests/images/run.sh after lib.sh (and scripts/images/podman-env.sh): the checks of
# the guest-compile image wasinn:VERSION-compile. Guests are built in it from this checkout's
# sources (mounted read-only) into a scratch directory, then run on the digits fixture: inside
# the CPU image (read-only, --network=none, model mounted read-only) when it exists, else with
# this checkout's build/bin/wasinn, and must classify 435/450 as tests/integration expects.
#   check_compile_image

# _compile_run ARGS...: podman run of the compile image with the checkout at /src (read-only) and
# the scratch directory at /out, the working directory. Rootless podman maps the caller's uid
# with keep-id; as root the scratch directory belongs to uid 1000, which the entrypoint then
# runs as (the image's own non-root user), so that path is what is tested.
_compile_run() {
  local user=()
  [[ $(id -u) -ne 0 ]] && user=(--userns=keep-id)
  podman run --rm --network=none "${user[@]}" -v "$_compile_root:/src:ro" -v "$_compile_out:/out" \
    -w /out "$_compile_image" "$@"
}

# _compile_digits GUEST.wasm: runs a digits guest on the fixture (model, 450 rows, labels).
_compile_digits() {
  local guest=$1 fixture=$_compile_fixtures/digits
  if podman image exists "$_compile_cpu_image"; then
    podman run --rm --network=none --read-only -v "$fixture:/d:ro" -v "$_compile_out:/g:ro" \
      "$_compile_cpu_image" run --dir /d::/d "/g/$guest" /d/model.onnx /d/test_x.f32 /d/test_y.u8
  else
    "$_compile_build/bin/wasinn" run --dir "$fixture::/d" "$_compile_out/$guest" \
      /d/model.onnx /d/test_x.f32 /d/test_y.u8
  fi
}

# _compile_rust_digits: the wasi-nn 0.6 Rust guest (guest/rust) on the fixture, whose arguments
# differ from the C guests'.
_compile_rust_digits() {
  local guest=compat_wasi_nn_06.wasm fixture=$_compile_fixtures/digits
  local args=(--model /d/model.onnx --x /d/test_x.f32 --y /d/test_y.u8)
  if podman image exists "$_compile_cpu_image"; then
    podman run --rm --network=none --read-only -v "$fixture:/d:ro" -v "$_compile_out:/g:ro" \
      "$_compile_cpu_image" run --dir /d::/d "/g/$guest" "${args[@]}"
  else
    "$_compile_build/bin/wasinn" run --dir "$fixture::/d" "$_compile_out/$guest" "${args[@]}"
  fi
}

check_compile_image() {
  _compile_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  _compile_build=${WASINN_BUILD_DIR:-$_compile_root/build}
  _compile_fixtures=${FIXTURES:-${WASINN_FIXTURES:-$HOME/.cache/wasinn/fixtures}}
  local version
  version=$(sed -n 's/^#define WASINN_VERSION_STRING "\(.*\)"/\1/p' "$_compile_build/include/wasinn/version.h" 2>/dev/null)
  _compile_image=localhost/wasinn:${version:-0.1.0}-compile
  _compile_cpu_image=localhost/wasinn:${version:-0.1.0}-cpu
  if ! podman image exists "$_compile_image"; then
    skip "compile image" "$_compile_image is not built (bash scripts/images.sh --only compile)"; return 0
  fi
  _compile_out=$(mktemp -d "${TMPDIR:-/tmp}/wasinn-compile-image.XXXXXX")
  # Readable by the CPU image's own user (uid 10001) that runs the outputs.
  chmod 0755 "$_compile_out"
  [[ $(id -u) -eq 0 ]] && chown 1000:1000 "$_compile_out"
  local runner="the CPU image $_compile_cpu_image"
  if ! podman image exists "$_compile_cpu_image"; then
    runner="the host's $_compile_build/bin/wasinn (no CPU image)"
  fi
  echo "# compile image: guests built in $_compile_image, run by $runner"

  # The Rust route is optional (WASINN_IMAGES_COMPILE_RUST=0 leaves it out).
  local rust=1 tools='clang version 14.*LLD 14.*v18\..*cargo 1\.'
  if ! podman run --rm "$_compile_image" sh -c 'command -v cargo' >/dev/null 2>&1; then
    rust=0 tools='clang version 14.*LLD 14.*v18\.'
  fi
  check_output "compile: clang 14, wasm-ld, node 18 (and cargo) on the PATH" "$tools" \
    _compile_run sh -c 'echo "$(clang --version | head -n1); $(wasm-ld --version); $(node --version);" \
      "$(! command -v cargo >/dev/null || cargo --version)"'
  check_output "compile: labels: title, version, revision" "^wasinn-compile ${version:-0.1.0} [0-9a-f]+\$" \
    podman image inspect --format '{{index .Labels "org.opencontainers.image.title"}} {{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.revision"}}' "$_compile_image"
  check_output "compile: runs as a non-root user (no mount)" '^1000$' podman run --rm "$_compile_image" id -u
  check_output "compile: builds run as a non-root user" '^[1-9][0-9]*$' _compile_run id -u
  if [[ $(id -u) -eq 0 ]]; then
    # The entrypoint's rule: the command runs as the owner of the working directory.
    check_output "compile: a mounted directory is written as its owner" '^4242 4242$' \
      sh -c 'd=$(mktemp -d) && chown 4242:4242 "$d" && trap "rm -rf \"$d\"" EXIT &&
        podman run --rm --network=none -v "$d:/src" "$1" touch made >/dev/null && stat -c "%u %g" "$d/made"' \
      _ "$_compile_image"
  fi
  check_output "compile: guest headers on the include path (no -I)" '^ok$' \
    _compile_run sh -c 'printf "#include <wasi_nn.h>\nint main(void){return 0;}\n" |
      clang --target=wasm32-wasi -O2 -x c - -o /out/headers.wasm && echo ok'
  # The digits guest with guest/CMakeLists.txt's flags (cmake/WasmGuest.cmake), plus -Werror.
  check "compile: C guest classify_digits.wasm" \
    _compile_run clang --target=wasm32-wasi -O2 -Wall -Wextra -Werror -I /src/guest/include \
      /src/guest/examples/classify_digits.c -o /out/classify_digits.wasm
  check "compile: C++ links against libc++ for wasm32-wasi" \
    _compile_run sh -c 'printf "#include <vector>\nint main() { std::vector<int> v{1, 2}; return int(v.size()) - 2; }\n" |
      clang++ --target=wasm32-wasi -O2 -fno-exceptions -x c++ - -o /out/cxx.wasm'
  # The component guest as guest/components/CMakeLists.txt builds wit_classify_digits.
  check "compile: component wit_classify_digits.component.wasm (wasinn-componentize)" \
    _compile_run wasinn-componentize -o /out/wit_classify_digits.component.wasm -Wall -Wextra -Werror \
      /src/guest/components/wit_classify_digits.c
  if [[ $rust == 0 ]]; then
    skip "compile: Rust guest" "the image has no Rust (built with WASINN_IMAGES_COMPILE_RUST=0)"
  else
    # guest/rust's wasi-nn 0.6 guest with the image's rustc 1.63 and the crates vendored in it.
    check "compile: Rust guest compat_wasi_nn_06.wasm (cargo offline, vendored crates)" \
      _compile_run sh -c 'cargo build --offline --locked --release --target wasm32-wasi -j 2 -p compat_wasi_nn_06 \
        --manifest-path /src/guest/rust/Cargo.toml --target-dir /out/rust-target &&
        cp /out/rust-target/wasm32-wasi/release/compat_wasi_nn_06.wasm /out/'
  fi

  if [[ ! -f $_compile_fixtures/digits/model.onnx ]]; then
    skip "compile: outputs classify the digits" "no fixture $_compile_fixtures/digits (scripts/fixtures)"
  elif ! podman image exists "$_compile_cpu_image" && [[ ! -x $_compile_build/bin/wasinn ]]; then
    skip "compile: outputs classify the digits" "neither $_compile_cpu_image nor $_compile_build/bin/wasinn"
  else
    check_output "compile: classify_digits.wasm classifies 435/450" 'accuracy: 435/450' \
      _compile_digits classify_digits.wasm
    check_output "compile: the component classifies 435/450" 'accuracy: 435/450' \
      _compile_digits wit_classify_digits.component.wasm
    [[ $rust == 0 ]] || check_output "compile: the Rust guest classifies 435/450" 'accuracy: 435/450' _compile_rust_digits
  fi
  # Files the container wrote belong to the caller (keep-id) or, as root, can be removed by root.
  rm -rf "$_compile_out"
}
