//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package karmem

// littleEndianTarget exists only on little-endian targets. Native slices
// over messages (format.md §5) are reinterpretations of little-endian bytes,
// so on a big-endian target the package deliberately fails to compile with
// "undefined: littleEndianTarget" instead of misreading data.
const littleEndianTarget = true
