//! The Rust member of the cross-language e2e guests (guests/polyglot.km):
//! exports Echo and Voter with the behaviour of guests/go/e2e-go-echo, so
//! that callers in any language can be tested against it
//! (crates/karmem-e2e/tests/polyglot.rs).

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{Msg, MsgView};
use karmem_guest::{Error, RegionSlice};

#[derive(Default)]
struct Echo;

impl e2e::echo::Echo for Echo {
    fn echo(&mut self, m: MsgView<'_, karmem::Trusted>) -> Result<Msg, Error> {
        Ok(Msg {
            text: m.text().to_string(),
            number: m.number().wrapping_add(1),
        })
    }

    /// Proves the argument was not copied: its bytes lie inside this
    /// module's window of `e2e.shared`, and the reply says where.
    fn peek(&mut self, m: MsgView<'_>) -> Result<Msg, Error> {
        let w = karmem_guest::window("e2e.shared").ok_or("peek: no window of e2e.shared")?;
        let msg = m.reader().bytes();
        let (start, at) = (w.ptr() as usize, msg.as_ptr() as usize);
        if msg.is_empty() || at < start || at + msg.len() > start + w.len() as usize {
            return Err(Error::new("peek: the argument is not in the shared window"));
        }
        Ok(Msg {
            text: m.text().to_string(),
            number: (at - start) as u32,
        })
    }

    fn fail(&mut self, m: MsgView<'_, karmem::Trusted>) -> Result<Msg, Error> {
        Err(Error::new(format!("fail: {}", m.text())))
    }

    /// The result stays in the `out` region, at the start of this module's
    /// window: the host passes it on by position, without a copy.
    fn stamp(&mut self, m: MsgView<'_, karmem::Trusted>) -> Result<RegionSlice, Error> {
        let w = karmem_guest::window("e2e.out").ok_or("stamp: no window of e2e.out")?;
        w.write_message(
            0,
            &Msg {
                text: m.text().to_string(),
                number: m.number().wrapping_add(100),
            },
        )
    }

    /// Writes over the argument in `e2e.shared`, which exporters may only
    /// read, the way its text says: the host must fail the call and keep
    /// the region unchanged. With a length the compiler cannot see, LLVM
    /// emits `memory.fill` and `memory.copy` (bulk memory is on for wasm32
    /// since Rust 1.87).
    fn scribble(&mut self, m: MsgView<'_>) -> Result<(), Error> {
        let msg = m.reader().bytes();
        let (p, len) = (msg.as_ptr().cast_mut(), core::hint::black_box(msg.len()));
        // SAFETY (all three): `p..p+len` is the argument's bytes in this
        // module's window; writing it is the bug this function stands for.
        match m.text() {
            "fill" => unsafe { core::ptr::write_bytes(p, 0, len) },
            "copy" => {
                let src = vec![0xee; len];
                unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), p, len) }
            }
            _ => (0..len).for_each(|i| unsafe { p.add(i).write_volatile(0xee) }),
        }
        Ok(())
    }

    fn nop(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn access(&mut self, m: MsgView<'_, karmem::Trusted>) -> Result<Msg, Error> {
        let access = karmem_guest::window(m.text()).map_or(0, |w| 1 + u32::from(w.writable()));
        Ok(Msg {
            text: m.text().to_string(),
            number: access,
        })
    }
}

#[derive(Default)]
struct Voter;

impl e2e::voter::Voter for Voter {
    /// Answers with this guest's language; "trap" makes it trap, so that
    /// fan-out tests can show one member trapping among others.
    fn vote(&mut self, q: MsgView<'_, karmem::Trusted>) -> Result<Msg, Error> {
        if q.text() == "trap" {
            core::arch::wasm32::unreachable();
        }
        Ok(Msg {
            text: "rust".to_string(),
            number: 0,
        })
    }
}

karmem_guest::module! {
    exports: [e2e::echo::export::<Echo>(), e2e::voter::export::<Voter>()],
    imports: [],
}
