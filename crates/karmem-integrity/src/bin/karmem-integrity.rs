//! The Rust member's command of the integrity suite (docs/integrity.md §4):
//! requests on standard input, one answer line each on standard output.

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    karmem_integrity::protocol::serve(stdin, stdout)
}
