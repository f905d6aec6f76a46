#!/usr/bin/env bash
# Takes the overhead bench binary (built by `cargo bench --bench overhead --no-run`), gives, for
# each function named on the command line (default: the spring chain's generated and
# hand-written adjoints), its size and how many of its double-precision arithmetic instructions
# are packed (vectorized: `*pd`, on xmm or wider registers, two or more lanes) against scalar
# (`*sd`), from `objdump -d`. Not in CI; needs binutils' objdump only.
#
#   benches/asm_check.sh                                   # spring_chain_vjp, spring_chain_adjoint
#   benches/asm_check.sh heat_vjp heat_adjoint heat_jvp    # any functions of the bench binary
#
# Uses $CARGO_TARGET_DIR (default ./target).
set -euo pipefail
dir="${CARGO_TARGET_DIR:-target}/release/deps"
bin=$(ls -t "$dir"/overhead-* 2>/dev/null | grep -v '\.d$' | head -1 || true)
if [ -z "$bin" ]; then
    echo "no bench binary under $dir: run cargo bench --bench overhead --no-run first" >&2
    exit 1
fi
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(spring_chain_vjp spring_chain_adjoint)
echo "binary: $bin"
printf '%-28s %8s %8s %8s %8s\n' function bytes packed scalar branches
for n in "${names[@]}"; do
    # The first symbol whose demangled path ends in `::<n>`.
    sym=$(objdump -t "$bin" | awk '{print $NF}' | grep -E "[0-9]+${n}17h[0-9a-f]{16}E$" | head -1 || true)
    if [ -z "$sym" ]; then
        printf '%-28s %s\n' "$n" "(not found: inlined or not built)"
        continue
    fi
    body=$(objdump -d --no-show-raw-insn "$bin" --disassemble="$sym")
    hex=$(objdump -t "$bin" | grep " $sym\$" | awk '{print $5}' | head -1)
    bytes=$((16#$hex))
    packed=$(grep -cE '\s(v?(add|sub|mul|div|fmadd[0-9]*|fmsub[0-9]*|fnmadd[0-9]*|fnmsub[0-9]*)pd)\s' <<<"$body" || true)
    scalar=$(grep -cE '\s(v?(add|sub|mul|div|fmadd[0-9]*|fmsub[0-9]*|fnmadd[0-9]*|fnmsub[0-9]*)sd)\s' <<<"$body" || true)
    branches=$(grep -cE '\sj[a-z]+\s' <<<"$body" || true)
    printf '%-28s %8s %8s %8s %8s\n' "$n" "$bytes" "$packed" "$scalar" "$branches"
done
