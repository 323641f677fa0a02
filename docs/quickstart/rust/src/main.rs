//! The Rust side of the quick start (docs/quickstart.md): reads the
//! message the Go program wrote (the file named by the first argument),
//! validates it once, reads it in place and prints it as the other
//! languages do.

mod chat {
    include!(concat!(env!("OUT_DIR"), "/chat.rs"));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: newcomer MESSAGE")?;
    // A reader needs the message 8-byte aligned: AlignedBuf copies it so.
    let buf = karmem::AlignedBuf::from_bytes(&std::fs::read(path)?);
    let reader = karmem::Reader::new(buf.as_slice())?;
    let m = chat::Message::validate(&reader)?; // then no per-access checks
    let tags: Vec<String> = m.tags().iter().map(|(k, v)| format!("{k}={v}")).collect();
    let reactions: Vec<String> = m
        .reactions()
        .iter()
        .map(|r| format!("{}={}", r.emoji(), r.count()))
        .collect();
    println!(
        "message {} {:?} tags [{}] reactions [{}] edited {} {}",
        m.id(),
        m.text(),
        tags.join(" "),
        reactions.join(" "),
        m.edited_at().unwrap_or(0),
        m.edited_at().is_some()
    );
    Ok(())
}
