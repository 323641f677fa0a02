//! `make demo`: the seed README's example, end to end, with code generated
//! by `karmem build --lang rust` from `app.km` (into src/generated/).

#[path = "generated/app.rs"]
mod app;

use app::*;

fn main() -> Result<(), karmem::Error> {
    // 1. Build a value with the object API and encode it with a reusable writer.
    let profile = |network, username: &str, id| Profile {
        data: ProfileData { network, username: username.into(), id },
    };
    let account = AccountData {
        id: 42,
        email: "example@email.com".into(),
        profiles: vec![
            profile(SocialNetwork::FACEBOOK, "inkeliz", 123),
            profile(SocialNetwork::FACEBOOK, "karmem", 231),
            profile(SocialNetwork::INSTAGRAM, "inkeliz", 312),
        ],
    };
    let mut writer = karmem::Writer::new(1024);
    account.write_as_root(&mut writer)?;
    let message = writer.bytes().to_vec();
    println!("encoded AccountData: {} bytes", message.len());
    for (i, line) in message.chunks(16).take(4).enumerate() {
        let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
        println!("  {:04x}: {}", i * 16, hex.join(" "));
    }
    println!("  ... (header \"KM\", format version 2, then the root table at offset 8)");

    // 2. Read fields in place, zero-copy, every access bounds-checked.
    let buf = karmem::AlignedBuf::from_bytes(&message);
    let reader = karmem::Reader::new(buf.as_slice())?;
    let view = AccountDataView::root(&reader);
    println!("\nviewer (checked): id={} email={:?}", view.id(), view.email());
    // app.km says `@packed(true)`: the profiles are an AoS array, elements
    // side by side, each holding the offset of its ProfileData table.
    for p in view.profiles().iter() {
        let data = p.data();
        println!("  profile {:?} {:>8} id={}", data.network(), data.username(), data.id());
    }

    // 3. Validate once, then read without per-access bounds checks.
    let trusted = AccountData::validate(&reader)?;
    let total: u64 = trusted.profiles().iter().map(|p| p.data().id()).sum();
    println!("\nvalidated: sum of profile ids = {total}");

    // 4. Decode into an existing object, reusing its allocations.
    let mut decoded = AccountData::default();
    decoded.read_as_root(&reader)?;
    println!("decoded object equals the original: {}", decoded == account);

    // 5. Update fields in place (no re-encoding): the generated editor's
    //    typed setters; a text may be rewritten within its capacity.
    let mut bytes = karmem::AlignedBuf::from_bytes(&message);
    let mut editor = karmem::ReaderMut::new(bytes.as_mut_slice())?;
    let mut edit = AccountDataEdit::root(&mut editor);
    edit.set_id(4242)?;
    edit.set_email("new@email.com")?;
    let too_long = edit.set_email("a.much.longer@email.com").is_err();
    println!(
        "in-place update: id is now {}, email {} (a longer one refused: {too_long})",
        edit.view().id(),
        edit.view().email()
    );

    // 6. Hostile input never panics: truncation is an error, corruption reads as zero.
    match karmem::Reader::new(&buf.as_slice()[..20]) {
        Err(e) => println!("\ntruncated message rejected: {e}"),
        Ok(_) => println!("\ntruncated message unexpectedly accepted"),
    }
    let mut corrupt = karmem::AlignedBuf::from_bytes(&message);
    corrupt.as_mut_slice()[36..40].copy_from_slice(&u32::MAX.to_le_bytes()); // profiles offset
    let r = karmem::Reader::new(corrupt.as_slice())?;
    println!(
        "corrupted profiles offset: checked viewer sees {} profiles; validate says: {}",
        AccountDataView::root(&r).profiles().len(),
        AccountData::validate(&r).err().map(|e| e.to_string()).unwrap_or_default()
    );
    Ok(())
}
