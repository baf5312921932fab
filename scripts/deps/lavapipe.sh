# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A newer lavapipe (Mesa's software Vulkan device) for TensorFlow Lite's GPU test only: LiteRT's
# GPU accelerator runs Dawn (WebGPU), which refuses Debian 12's lavapipe (Mesa 22.3 lacks
# shaderSampledImageArrayDynamicIndexing and shaderStorageImageArrayDynamicIndexing) and accepts
# Mesa 25.0's, from bookworm-backports. Unpacked into its own prefix with an ICD file naming it by
# full path, so nothing on the system changes: a test selects it with VK_ICD_FILENAMES
# ($DEPS/lavapipe/lvp_icd.json). It links the system's libLLVM-15, as Debian 12's Mesa does.
# Sourced by scripts/fetch-deps.sh, which provides say, $DEPS and $DL.
LAVAPIPE_VERSION=25.0.7-2~bpo12+1

install_lavapipe() {
  local prefix=$DEPS/lavapipe stamp=$DEPS/lavapipe/.version
  [[ -f $stamp && $(cat "$stamp") == "$LAVAPIPE_VERSION" ]] && return
  local deb=$DL/mesa-vulkan-drivers_${LAVAPIPE_VERSION}_amd64.deb
  if [[ ! -s $deb ]]; then
    # apt with a state of its own: bookworm-backports is read, never added to the system's sources.
    local apt=$DL/apt-backports
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$apt/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
    say "downloading mesa-vulkan-drivers $LAVAPIPE_VERSION (bookworm-backports)"
    apt-get -q "${opts[@]}" update >/dev/null
    (cd "$apt" && apt-get -q "${opts[@]}" download "mesa-vulkan-drivers=$LAVAPIPE_VERSION" >/dev/null)
    mv "$apt"/mesa-vulkan-drivers_*.deb "$deb"
  fi
  rm -rf "$prefix" && mkdir -p "$prefix/lib"
  local tmp; tmp=$(mktemp -d)
  dpkg-deb -x "$deb" "$tmp"
  cp "$tmp"/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so "$prefix/lib/"
  cp "$tmp"/usr/share/doc/mesa-vulkan-drivers/copyright "$prefix/COPYRIGHT"
  rm -rf "$tmp"
  # The real path: .deps is a link that each checkout has, and the prefix is shared by them all.
  local real; real=$(cd "$prefix" && pwd -P)
  cat >"$prefix/lvp_icd.json" <<EOF
{"file_format_version": "1.0.0", "ICD": {"library_path": "$real/lib/libvulkan_lvp.so", "api_version": "1.4.305"}}
EOF
  echo "$LAVAPIPE_VERSION" >"$stamp"
  say "lavapipe (Mesa $LAVAPIPE_VERSION) -> $prefix"
}
