//! The host's loader on hostile modules (docs/security.md §2.1): whatever
//! `karmem_rewrite::rewrite` accepts must come out as a valid module in
//! which every bulk-memory write sits behind the read-only guard; whatever
//! is invalid must be refused. Half the inputs are raw bytes, half are
//! modules wasm-smith builds from them (valid, with bulk memory, SIMD and
//! atomics, one memory: what the engine accepts).
#![no_main]
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fn check(wasm: &[u8]) {
    match karmem_rewrite::rewrite(wasm) {
        Ok((out, report)) => {
            if let Err(e) = karmem_rewrite::check_guarded(&out, &report) {
                panic!("rewrite broke its promise: {e}");
            }
        }
        Err(e) => {
            // Refused: fine for anything invalid; a valid module may only
            // be refused for exporting a reserved name (a valid module
            // has one memory, so no bulk write on another).
            if karmem_rewrite::validate(wasm).is_ok() {
                let reserved = wasmparser::Parser::new(0)
                    .parse_all(wasm)
                    .filter_map(Result::ok)
                    .any(|p| match p {
                        wasmparser::Payload::ExportSection(r) => r.into_iter().any(|x| {
                            x.is_ok_and(|x| {
                                [
                                    karmem_rewrite::RO_START,
                                    karmem_rewrite::RO_END,
                                    karmem_rewrite::RO_FAULT,
                                ]
                                .contains(&x.name)
                            })
                        }),
                        _ => false,
                    });
                assert!(reserved, "a valid module was refused: {e}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        check(rest);
        return;
    }
    let mut config = wasm_smith::Config {
        max_memories: 1,
        memory64_enabled: false,
        exceptions_enabled: false,
        gc_enabled: false,
        custom_page_sizes_enabled: false,
        bulk_memory_enabled: true,
        simd_enabled: true,
        threads_enabled: true,
        ..wasm_smith::Config::default()
    };
    config.min_memories = 1;
    let mut u = Unstructured::new(rest);
    if let Ok(module) = wasm_smith::Module::new(config, &mut u) {
        check(&module.to_bytes());
    }
});
