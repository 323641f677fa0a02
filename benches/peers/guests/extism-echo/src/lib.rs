//! The Extism peer of Karmem's WAT echo guest
//! (`karmem_testkit::wat_guest::echo_guest`): `nop` takes and returns
//! nothing, `echo` returns its input bytes as they are.

use extism_pdk::*;

/// No input read, no output set: the bare cost of an Extism call.
#[plugin_fn]
pub fn nop() -> FnResult<()> {
    Ok(())
}

/// The input, as bytes, is the output. `Vec<u8>` is the PDK's raw-bytes
/// type (no encoding): the input is read out of the kernel's memory into
/// the guest and the result written back into it, as any Extism plug-in
/// that looks at its input does.
#[plugin_fn]
pub fn echo(input: Vec<u8>) -> FnResult<Vec<u8>> {
    Ok(input)
}
