//! Region files are kept and reused by the runtime's next applications
//! (RATIONALE R8.23): what the next application of the same size sees of
//! the last one's region (nothing), and a `Region` handle that outlives its
//! application keeps its file out of reuse.

use karmem_host::{Access, AppBuilder, ModuleOptions, Pattern};

use super::common::*;

const REGION: &str = "t.spare";

/// Declares a 2-page region the guest reads; `peek` replies with the 8
/// bytes at the window's offset 4096.
fn reader() -> Guest {
    Guest::new(
        vec![iface(
            "t.Read",
            Pattern::Direct,
            vec![memory(REGION, Access::ReadWrite, Access::Read, 2)],
            vec![simple("peek")],
        )],
        vec![],
    )
    .func(
        "t.Read",
        "peek",
        "(call $reply (i32.add (call $win (i32.const 0)) (i32.const 4096)) (i32.const 8))",
    )
}

fn app(module: &karmem_host::GuestModule) -> karmem_host::App {
    AppBuilder::new(runtime())
        .module_with(
            module.clone(),
            ModuleOptions::default().grant(REGION, Access::Read),
        )
        .build()
        .expect("build")
}

fn peek(app: &karmem_host::App) -> Vec<u8> {
    match app.call("r", "t.Read", "peek", &[]).expect("peek") {
        karmem_host::Output::Bytes(b) => b,
        other => panic!("{other:?}"),
    }
}

/// Many applications one after the other, each writing a secret into its
/// region: the next one's region, host side and guest side, is all zeros.
#[test]
fn the_next_application_sees_nothing_of_the_last_ones_region() {
    let module = reader().load("r");
    for round in 0..20u8 {
        let app = app(&module);
        let region = app.region(REGION).unwrap();
        let mut all = vec![0xff; region.len()];
        region.read(0, &mut all).unwrap();
        assert!(
            all.iter().all(|&b| b == 0),
            "round {round}: a fresh application's region holds {} non-zero bytes",
            all.iter().filter(|&&b| b != 0).count()
        );
        assert_eq!(peek(&app), [0; 8], "round {round}: the guest's window");
        region.write(0, &[round + 1; 8]).unwrap();
        region.write(4096, &[round + 1; 8]).unwrap();
        region
            .write(region.len() as u32 - 8, &[round + 1; 8])
            .unwrap();
        assert_eq!(peek(&app), [round + 1; 8]);
    }
}

/// A `Region` kept after its application is dropped still holds the
/// application's bytes, and the next application gets a file of its own:
/// neither sees the other's writes.
#[test]
fn a_region_handle_that_outlives_its_application_keeps_its_file() {
    let module = reader().load("r");
    let kept = {
        let app = app(&module);
        let region = app.region(REGION).unwrap();
        region.write(4096, b"KEPT....").unwrap();
        region
    };
    let next = app(&module);
    assert_eq!(
        peek(&next),
        [0; 8],
        "the next application's file is not the kept one"
    );
    next.region(REGION)
        .unwrap()
        .write(4096, b"NEXT....")
        .unwrap();
    let mut v = [0; 8];
    kept.read(4096, &mut v).unwrap();
    assert_eq!(&v, b"KEPT....");
    kept.write(4096, b"LATER...").unwrap();
    assert_eq!(peek(&next), *b"NEXT....");
}
