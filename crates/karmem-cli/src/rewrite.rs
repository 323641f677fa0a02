//! `karmem rewrite in.wasm out.wasm`: the load-time rewrite of
//! docs/abi.md §6 (crate `karmem-rewrite`) as a command, for hosts other
//! than `karmem-host`: a module rewritten here guards its bulk-memory
//! writes against the read-only range the host sets in the three
//! `__karmem_ro_*` globals.

use std::fs;
use std::path::Path;

use crate::Failure;

pub fn rewrite(input: &Path, output: &Path) -> Result<(), Failure> {
    let wasm = fs::read(input).map_err(|e| Failure::Io(format!("{}: {e}", input.display())))?;
    let (out, report) = karmem_rewrite::rewrite(&wasm)
        .map_err(|e| Failure::Message(format!("{}: {e}", input.display())))?;
    fs::write(output, out).map_err(|e| Failure::Io(format!("{}: {e}", output.display())))?;
    eprintln!(
        "{}: rewrite version {}: {} bulk-memory writes guarded by {} helpers; range globals {}..{}",
        output.display(),
        karmem_rewrite::VERSION,
        report.guarded,
        report.helpers,
        report.first_global,
        report.first_global + 3
    );
    Ok(())
}
