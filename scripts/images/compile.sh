# Sourced by scripts/images.sh. (Being written: the guest-compile image's packages and context.)
compile_packages() { echo "compile_packages: not written yet" >&2; return 1; }
stage_compile() { echo "stage_compile: not written yet" >&2; return 1; }
