use super::*;
use alloc::vec;

/// The worked example of docs/abi.md §3.1, byte for byte.
#[test]
fn signature_of_the_abi_example() {
    let world = "game.world";
    let sig = Signature {
        interface: "game.Updater",
        memories: vec![Memory {
            name: world,
            importer: Access::Read,
            exporter: Access::ReadWrite,
            pages: 16,
        }],
        functions: vec![
            Function {
                name: "update",
                params: vec![
                    Param {
                        name: "state",
                        ty: "game.State",
                        memory: Some(world),
                    },
                    Param {
                        name: "input",
                        ty: "game.Input",
                        memory: None,
                    },
                ],
                result: Some(Param {
                    name: "next",
                    ty: "game.State",
                    memory: Some(world),
                }),
            },
            Function {
                name: "reset",
                params: vec![],
                result: None,
            },
        ],
    };
    let text = sig.text();
    assert_eq!(
        text,
        "interface game.Updater\nmemory game.world import=read export=readwrite pages=16\nfn update(state: game.State @ game.world, input: game.Input) -> next: game.State @ game.world\nfn reset()\n"
    );
    assert_eq!(sig.hash(), 0xf1c9_c72e_7ed9_6715);
    assert_eq!(fnv1a64(text.as_bytes()), sig.hash());
}

#[test]
fn fnv1a_reference_values() {
    // Offset bases, and the published test vector "a".
    assert_eq!(fnv1a32(b""), 0x811c_9dc5);
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
}

#[test]
fn path_hash_is_fnv1a_over_le_u32() {
    assert_eq!(path_hash(&[]), fnv1a32(b""));
    assert_eq!(path_hash(&[0x0403_0201]), fnv1a32(&[1, 2, 3, 4]));
    assert_eq!(path_hash(&[1, 2]), fnv1a32(&[1, 0, 0, 0, 2, 0, 0, 0]));
    const AT_COMPILE_TIME: u32 = path_hash(&[3]);
    assert_eq!(AT_COMPILE_TIME, fnv1a32(&[3, 0, 0, 0]));
}

#[test]
fn access_wire_values_round_trip() {
    for a in [Access::None, Access::Read, Access::ReadWrite] {
        assert_eq!(Access::from_wire(a.wire()), Some(a));
    }
    assert_eq!(Access::from_wire(3), None);
    assert!(Access::Read < Access::ReadWrite);
}

#[test]
fn bunch_table_geometry() {
    // Head + entries, 16 bytes each, no padding.
    assert_eq!(bunch_table_size(0), 16);
    assert_eq!(bunch_table_size(2), 48);
    assert_eq!(bunch_table_size(4), 80);
    assert_eq!(bunch_table_size(u32::MAX as u64), (1u64 << 36));
}

#[test]
fn soa_directory_geometry() {
    // `n`, `n` hashes, `n` sizes; charged with the block's pointer word.
    assert_eq!(soa_directory_size(0), 4);
    assert_eq!(soa_directory_size(3), 28);
    assert_eq!(soa_directory_charge(3), 32);
    for n in 0..64 {
        assert_eq!(soa_directory_charge(n), 8 * (n + 1));
        assert_eq!(soa_directory_size(n) % SOA_DIRECTORY_ALIGN as u64, 0);
    }
}
