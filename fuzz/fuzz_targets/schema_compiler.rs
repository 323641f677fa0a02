//! The compiler must turn any text into a schema or diagnostics — never a
//! panic — and the formatter must be idempotent on whatever it accepts.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(compiled) = karmem_schema::compile("fuzz.km", source) {
        let _ = karmem_layout::compute(&compiled.schema);
    } else if let Err(diags) = karmem_schema::compile("fuzz.km", source) {
        let _ = diags.render(false);
    }
    if let Ok(once) = karmem_schema::format("fuzz.km", source) {
        let twice = karmem_schema::format("fuzz.km", &once).expect("formatted output parses");
        assert_eq!(once, twice, "formatter is not idempotent");
    }
});
