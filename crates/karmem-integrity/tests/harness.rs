//! The harness finds disagreements: a member that writes one different
//! byte, or reads one value differently, stops the run with the seed, the
//! members and where they differ.

use karmem_integrity::harness::{self, InProcess, Member};
use karmem_integrity::sink::{hex, unhex};

/// The Rust member, with one byte of what it answers to `command` changed
/// (the last byte of a produced message, or of a canonical stream, whose
/// digest it then recomputes).
struct Tampering {
    command: &'static str,
}

impl Member for Tampering {
    fn name(&self) -> &str {
        "tampering"
    }

    fn ask(&mut self, request: &str) -> String {
        let cmd = request.split(' ').next().unwrap_or_default();
        let honest = InProcess.ask(request);
        let tampered = cmd == self.command || (self.command == "consume" && cmd == "stream");
        if !tampered || honest.starts_with("error") {
            return honest;
        }
        let flip = |h: &str| {
            let mut b = unhex(h).unwrap();
            *b.last_mut().unwrap() ^= 1;
            b
        };
        match cmd {
            // The stream's last byte changed; its digest follows.
            "consume" => {
                let stream = InProcess.ask(&request.replacen("consume", "stream", 1));
                let bytes = flip(&stream);
                karmem_integrity::sink::Sink {
                    bytes,
                    ..Default::default()
                }
                .digest_hex()
            }
            _ => hex(&flip(&honest)),
        }
    }
}

fn panic_message(run: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(run).expect_err("the harness must fail");
    err.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn a_producer_that_writes_one_other_byte_is_found() {
    let msg = panic_message(|| {
        let mut members: Vec<Box<dyn Member>> = vec![
            Box::new(InProcess),
            Box::new(Tampering { command: "produce" }),
        ];
        harness::run(&mut members, 1..2);
    });
    assert!(
        msg.contains("seed 1, old: the rust and tampering producers differ"),
        "{msg}"
    );
    assert!(msg.contains("first difference at byte"), "{msg}");
}

#[test]
fn a_consumer_that_reads_one_other_value_is_found() {
    let msg = panic_message(|| {
        let mut members: Vec<Box<dyn Member>> = vec![
            Box::new(InProcess),
            Box::new(Tampering { command: "consume" }),
        ];
        harness::run(&mut members, 2..3);
    });
    assert!(msg.contains("seed 2: the old message read as old"), "{msg}");
    assert!(
        msg.contains("the rust and tampering consumers disagree"),
        "{msg}"
    );
}
