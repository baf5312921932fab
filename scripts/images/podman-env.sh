# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by scripts/images.sh and tests/images/: a podman that works on this kind of machine
# without touching the machine's own configuration (/etc/containers, /var/lib/containers).
#   - runc, not crun: crun 1.8 refuses this host's hybrid cgroups;
#   - cgroupfs and a file event log: no systemd session here;
#   - default_ulimits no higher than the machine's hard limits, or every `podman run` fails;
#   - storage under ~/.cache/wasinn/containers, so images survive between runs (incremental).
# Sets IMAGES_STATE and exports CONTAINERS_CONF / CONTAINERS_STORAGE_CONF; defines podman_usable.
IMAGES_STATE=${WASINN_IMAGES_STATE:-$HOME/.cache/wasinn/containers}
mkdir -p "$IMAGES_STATE"

_wasinn_write_if_changed() {  # FILE: replaces FILE with stdin only when the content differs
  local tmp; tmp=$(mktemp)
  cat >"$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi
}

_wasinn_hard_nofile=$(ulimit -Hn); _wasinn_hard_nproc=$(ulimit -Hu)
[[ $_wasinn_hard_nofile == unlimited || $_wasinn_hard_nofile -gt 1048576 ]] && _wasinn_hard_nofile=1048576
[[ $_wasinn_hard_nproc == unlimited || $_wasinn_hard_nproc -gt 32768 ]] && _wasinn_hard_nproc=32768
_wasinn_write_if_changed "$IMAGES_STATE/containers.conf" <<EOC
# written by scripts/images/podman-env.sh
[containers]
default_ulimits = ["nofile=${_wasinn_hard_nofile}:${_wasinn_hard_nofile}", "nproc=${_wasinn_hard_nproc}:${_wasinn_hard_nproc}"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$IMAGES_STATE/events.log"
EOC
_wasinn_write_if_changed "$IMAGES_STATE/storage.conf" <<EOC
# written by scripts/images/podman-env.sh
[storage]
driver = "overlay"
graphroot = "$IMAGES_STATE/storage"
runroot = "${XDG_RUNTIME_DIR:-/tmp}/wasinn-containers-$(id -u)"
EOC
export CONTAINERS_CONF=$IMAGES_STATE/containers.conf
export CONTAINERS_STORAGE_CONF=$IMAGES_STATE/storage.conf
unset _wasinn_hard_nofile _wasinn_hard_nproc

# podman_usable: 0 when podman is installed and can run a container here; else prints why to stdout.
podman_usable() {
  if ! command -v podman >/dev/null; then
    echo "podman is not installed (bash scripts/images.sh installs it and builds the images)"; return 1
  fi
  local out
  if ! out=$(podman info --format '{{.Host.OCIRuntime.Name}}' 2>&1); then
    echo "podman does not work here: $(tail -n1 <<<"$out")"; return 1
  fi
}

# image_layers REF: REF's layers with content, largest first, as "SIZE  WHAT" (the Containerfile
# step, without buildah's content hashes). podman 4.3 prints sizes only as "2.3 GB": read back.
image_layers() {
  podman history --no-trunc --format '{{.Size}}|{{.CreatedBy}}' "$1" |
    awk -F'|' '{split($1, v, " "); m = v[2] == "GB" ? 1e9 : v[2] == "MB" ? 1e6 : v[2] == "kB" ? 1e3 : 1;
               if (v[1] * m > 0) printf "%d|%s|%s\n", v[1] * m, $1, $2}' | sort -t'|' -k1,1 -n -r |
    sed -E 's/\/bin\/sh -c (#\(nop\) )?//; s/(COPY|ADD) (dir|file):[0-9a-f]+ in /\1 /; s/\|ADD \/ *$/|the Debian base with its packages (mmdebstrap)/' |
    while IFS='|' read -r _ size what; do printf '%9s  %s\n' "$size" "${what:0:100}"; done
}
