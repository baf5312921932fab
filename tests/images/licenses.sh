# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by tests/images/run.sh after tests/images/lib.sh: the images' licence checks.
#   check_licenses FLAVOR IMAGE    FLAVOR cpu | nvidia | compile
# From inside the image: every component that /opt/wasinn/LICENSES/README (nvidia: also
# README.nvidia) lists has a non-empty text in its folder, and so does every crate or npm package
# of a folder's INDEX; every installed Debian package has its /usr/share/doc/PKG/copyright.
# From outside: the label org.opencontainers.image.licenses is what licenses_spdx FLAVOR prints.
_LIC_TEST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
declare -F licenses_spdx >/dev/null || source "$_LIC_TEST_ROOT/scripts/images/licenses.sh"
[[ -n ${CONTAINERS_CONF:-} ]] || source "$_LIC_TEST_ROOT/scripts/images/podman-env.sh"

# Runs in the image (/bin/sh): one line per component, "ok ..." or "BAD ...". A table's rows
# follow its "component<TAB>..." header: component, version, SPDX, folder, where from.
_LIC_IN_IMAGE='
L=/opt/wasinn/LICENSES
tab=$(printf "\t")
has_text() { [ -d "$1" ] && [ -n "$(find "$1" -maxdepth 1 -type f -size +0 | head -n 1)" ]; }
for readme in "$@"; do
  [ -s "$L/$readme" ] || { echo "BAD no $L/$readme"; continue; }
  awk -F"\t" "f && NF >= 5 {print \$4 \"\t\" \$1} /^component\t/ {f = 1}" "$L/$readme" |
  while IFS="$tab" read -r folder name; do
    case $folder in
      -) echo "BAD $name: its text was MISSING when the image was built ($readme)" ;;
      /usr/share/doc/) echo "ok $name: Debian copyright files (checked below)" ;;
      *)
        if ! has_text "$L/$folder"; then echo "BAD $name: no text in $L/$folder"; continue; fi
        if [ -f "$L/$folder/INDEX" ]; then
          n=0 bad=0
          while IFS="$tab" read -r pkg ver lic sub from; do
            case $pkg in "#"*|"") continue ;; esac
            n=$((n + 1))
            if [ "$sub" = - ] || ! has_text "$L/$folder$sub"; then
              bad=$((bad + 1)); echo "BAD $name: $pkg $ver has no text ($folder$sub)"
            fi
          done <"$L/$folder/INDEX"
          [ $bad = 0 ] && echo "ok $name: $n texts in $folder"
        else
          echo "ok $name: $folder"
        fi ;;
    esac
  done
done
missing=$(dpkg-query -W -f "\${Package}\n" | while read -r p; do [ -s "/usr/share/doc/$p/copyright" ] || echo "$p"; done)
if [ -n "$missing" ]; then echo "BAD Debian packages without /usr/share/doc/PKG/copyright:" $missing
else echo "ok every Debian package ($(dpkg-query -W | wc -l)) has its copyright file"; fi
'

# _lic_texts_in IMAGE README...: the in-image listing; fails when a line is BAD or none is ok.
_lic_texts_in() {
  local image=$1 out; shift
  out=$(podman run --rm --network=none --entrypoint /bin/sh "$image" -c "$_LIC_IN_IMAGE" sh "$@" 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  ! grep -q '^BAD' <<<"$out" && grep -q '^ok' <<<"$out"
}

_lic_label_is() {  # IMAGE WANT
  local got
  got=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.licenses"}}' "$1") || return 1
  echo "label: $got"
  [[ $got == "$2" ]] || { echo "want:  $2"; return 1; }
}

check_licenses() {
  local flavor=$1 image=$2 readmes=(README)
  [[ $flavor == nvidia ]] && readmes=(README README.nvidia)
  local want; want=$(licenses_spdx "$flavor") || { skip "$flavor: licences" "no image flavour '$flavor'"; return; }
  check_output "$flavor: /opt/wasinn/LICENSES has a text for every component listed (${readmes[*]})" \
    '^ok every Debian package' _lic_texts_in "$image" "${readmes[@]}"
  check "$flavor: label org.opencontainers.image.licenses = licenses_spdx $flavor" \
    _lic_label_is "$image" "$want"
}
