//! `componentize CORE.wasm COMPONENT.wasm`: turns the core module of a
//! wit-bindgen guest into a component. The world comes from the
//! `component-type` custom section wit-bindgen embeds in the module, so no
//! WIT file is needed here. A crate rather than `wasm-tools component new`:
//! its version is pinned in this workspace's lock file, next to the rest.

use anyhow::{bail, Context, Result};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        bail!("usage: componentize CORE.wasm COMPONENT.wasm");
    };
    let core = std::fs::read(input).with_context(|| format!("read {input}"))?;
    let component = wit_component::ComponentEncoder::default()
        .validate(true)
        .module(&core)
        .with_context(|| format!("{input}: not a wit-bindgen core module"))?
        .encode()
        .with_context(|| format!("{input}: encode the component"))?;
    std::fs::write(output, &component).with_context(|| format!("write {output}"))?;
    eprintln!(
        "componentize: {output} ({} bytes, from {} bytes)",
        component.len(),
        core.len()
    );
    Ok(())
}
