// Generates src/chat.rs's module from the schema at build time, into
// $OUT_DIR/chat.rs (named after `karmem chat;`), and reruns when the
// schema (or a file it imports) changes.
fn main() {
    karmem_codegen::script::generate(
        std::path::Path::new("chat.km"),
        &karmem_codegen::rust::RustBackend::default(),
    );
}
