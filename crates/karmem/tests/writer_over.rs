//! `Writer::over`: encoding into a caller's buffer (a shared or exported
//! region) without a copy. The byte-for-byte contract over every golden
//! vector is checked in karmem-vectors-rust (`over_callers_buffer`).
use karmem::{Error, Reader, Writer};

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

fn bytes(lines: &mut [Line]) -> &mut [u8] {
    // SAFETY: `lines` is `len * 64` initialised bytes, any byte is a u8.
    unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u8>(), lines.len() * 64) }
}

#[test]
fn a_caller_buffer_must_be_aligned_and_hold_a_line() {
    let mut buf = [Line([0; 64]); 2];
    let raw = bytes(&mut buf);
    assert!(matches!(
        Writer::over(&mut raw[8..]),
        Err(Error::Misaligned)
    ));
    assert!(matches!(Writer::over(&mut raw[..63]), Err(Error::TooLarge)));
    assert!(Writer::over(&mut raw[..64]).is_ok());
}

#[test]
fn a_message_is_written_in_place_and_never_grows_the_buffer() {
    let mut buf = [Line([0xEE; 64]); 2];
    let raw = bytes(&mut buf);
    let at = raw.as_ptr();
    let mut w = Writer::over(raw).unwrap();
    w.begin();
    let t = w.alloc(8, 8).unwrap();
    w.put(t, 1u32 | (4 << 29));
    w.put(t + 4, 7u32);
    let m = w.finish().unwrap();
    assert_eq!(m.as_ptr(), at, "the message is the caller's bytes");
    assert_eq!(Reader::new(m).unwrap().size(), 16);
    // 128 bytes hold the header and 120 more; 121 do not fit.
    w.begin();
    assert!(w.alloc(120, 8).is_ok());
    w.begin();
    assert_eq!(w.alloc(121, 8), Err(Error::TooLarge));
    assert_eq!(w.alloc_array(200, 1), Err(Error::TooLarge));
}

#[test]
fn writers_can_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Writer<'static>>();
    send_sync::<Writer<'_>>();
}
