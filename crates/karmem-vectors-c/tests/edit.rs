//! The generated in-place setters and field offset constants (docs/c.md,
//! "Editing in place"; format.md §12), as Go's `SetF`, `EditF`, `SetFLen`:
//! a C program built against the code generated for a small schema edits a
//! message through the setters, then the validator, the decoder and the
//! trusted viewers must read the new values; what §12 forbids (a field an
//! older writer did not write, a length past the capacity or the limit, an
//! absent table) must fail without a write. Under ASan and UBSan, with the
//! flags generated code is held to.
//!
//! Run: `cargo test -p karmem-vectors-c --test edit` (needs clang-19:
//! `scripts/setup-c.sh`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use karmem_codegen::c::CBackend;
use karmem_codegen::Backend;
use karmem_vectors_c::{repo_root, GENERATED};

const SCHEMA: &str = "karmem ed;
enum Kind u8 { A; B; C; }
struct Old table { Count u32; }
struct Thing table {
    Count u32;
    Ratio f64;
    On bool;
    Kind Kind;
    Nums []i16;
    Small [<4]u32;
    Flags []bool;
    Name []char;
}
";

const PROGRAM: &str = r#"
#include <stdio.h>
#include "ed.h"

static int failures;
#define CHECK(c)                                                  \
    do {                                                          \
        if (!(c)) {                                               \
            printf("check failed, line %d: %s\n", __LINE__, #c);  \
            failures++;                                           \
        }                                                         \
    } while (0)

static _Alignas(8) uint8_t buf[1024];

/* Encodes with w and copies the message into buf; returns its length. */
static uint32_t message(km_writer *w) {
    uint32_t n = km_writer_len(w);
    memcpy(buf, km_writer_bytes(w), n);
    return n;
}

static void offsets(void);

int main(void) {
    int16_t nums[3] = {1, 2, 3};
    uint32_t small[2] = {10, 20};
    bool flags[2] = {true, false};
    ed_thing x, y;
    ed_old old;
    km_writer w;
    km_editor e;
    km_arena arena;
    ed_thing_view v;
    ed_thing_tview t;
    km_i16_edit n;
    km_u8_edit f;
    uint32_t len;
    memset(&x, 0, sizeof x);
    x.count = 7;
    x.ratio = 0.5;
    x.on = false;
    x.kind = ED_KIND_B;
    x.nums.ptr = nums;
    x.nums.len = 3;
    x.small.ptr = small;
    x.small.len = 2;
    x.flags.ptr = flags;
    x.flags.len = 2;
    x.name = km_text_cstr("thing");
    offsets();
    CHECK(km_writer_init(&w, 256, NULL) == KM_OK);
    CHECK(ed_thing_encode(&x, &w) == KM_OK);
    len = message(&w);
    CHECK(km_editor_open(&e, buf, len) == KM_OK);
    v = ed_thing_view_root(&e.r);
    CHECK(ed_thing_view_set_count(v, &e, 9) == KM_OK);
    CHECK(ed_thing_view_set_ratio(v, &e, -2.25) == KM_OK);
    CHECK(ed_thing_view_set_on(v, &e, true) == KM_OK);
    CHECK(ed_thing_view_set_kind(v, &e, ED_KIND_C) == KM_OK);
    n = ed_thing_view_edit_nums(v, &e);
    CHECK(n.ptr != NULL && n.len == 3 && n.cap == 3);
    if (n.ptr != NULL) {
        n.ptr[1] = -5;
    }
    f = ed_thing_view_edit_flags(v, &e);
    CHECK(f.ptr != NULL && f.len == 2 && f.ptr[0] == 1 && f.ptr[1] == 0);
    if (f.ptr != NULL) {
        f.ptr[1] = 1;
    }
    /* Shorter, then not past the capacity or the limit. */
    CHECK(ed_thing_view_set_nums_len(v, &e, 2) == KM_OK);
    CHECK(ed_thing_view_set_nums_len(v, &e, 4) == KM_ERR_TOO_LARGE);
    CHECK(ed_thing_view_set_small_len(v, &e, 5) == KM_ERR_TOO_LARGE);
    CHECK(ed_thing_view_set_small_len(v, &e, 1) == KM_OK);
    CHECK(ed_thing_validate(&e.r, NULL) == KM_OK);
    /* The edited message, decoded and through the trusted viewers. */
    km_arena_init_growable(&arena, NULL, 0, NULL);
    CHECK(ed_thing_decode(&y, &e.r, &arena) == KM_OK);
    CHECK(y.count == 9 && y.ratio == -2.25 && y.on && y.kind == ED_KIND_C);
    CHECK(y.nums.len == 2 && y.nums.ptr[0] == 1 && y.nums.ptr[1] == -5);
    CHECK(y.small.len == 1 && y.small.ptr[0] == 10);
    CHECK(y.flags.len == 2 && y.flags.ptr[0] && y.flags.ptr[1]);
    CHECK(y.name.len == 5 && memcmp(y.name.ptr, "thing", 5) == 0);
    CHECK(ed_thing_trust(&e.r, NULL, &t) == KM_OK);
    CHECK(ed_thing_tview_count(t) == 9 && ed_thing_tview_kind(t) == ED_KIND_C);
    CHECK(ed_thing_tview_nums(t).len == 2 && ed_thing_tview_nums(t).ptr[1] == -5);
    /* Growing again exposes zeros: the dropped element was cleared. */
    CHECK(ed_thing_view_set_nums_len(v, &e, 3) == KM_OK);
    CHECK(ed_thing_view_nums(v).len == 3 && ed_thing_view_nums(v).ptr[2] == 0);
    /* An older writer's table has no Ratio: it cannot be added in place. */
    memset(&old, 0, sizeof old);
    old.count = 1;
    CHECK(ed_old_encode(&old, &w) == KM_OK);
    len = message(&w);
    CHECK(km_editor_open(&e, buf, len) == KM_OK);
    v = ed_thing_view_root(&e.r);
    CHECK(ed_thing_view_set_count(v, &e, 2) == KM_OK);
    CHECK(ed_thing_view_set_ratio(v, &e, 1.0) == KM_ERR_MALFORMED_TABLE);
    CHECK(ed_thing_view_set_nums_len(v, &e, 0) == KM_ERR_MALFORMED_TABLE);
    CHECK(ed_thing_view_edit_nums(v, &e).ptr == NULL);
    CHECK(ed_old_view_count(ed_old_view_root(&e.r)) == 2);
    /* An absent table (the zero view) is never written. */
    memset(&v, 0, sizeof v);
    v.r = &e.r;
    CHECK(ed_thing_view_set_count(v, &e, 3) == KM_ERR_MALFORMED_TABLE);
    km_arena_free(&arena);
    km_writer_free(&w);
    if (failures == 0) {
        printf("edit: ok\n");
    }
    return failures != 0;
}
"#;

#[test]
fn setters_edit_in_place() {
    let (s, l) = karmem_layout::load("ed.km", SCHEMA).expect("schema");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-edit");
    std::fs::create_dir_all(&dir).unwrap();
    for f in CBackend.generate(&s, &l).expect("C generator") {
        std::fs::write(dir.join(&f.path), &f.contents).unwrap();
    }
    // The offset constants are the layout's.
    let mut program = PROGRAM.to_string();
    program.push_str("\nstatic void offsets(void) {\n");
    for (id, st) in s.structs.iter().enumerate() {
        for (i, f) in l.of_struct(id).fields.iter().enumerate() {
            let _ = writeln!(
                program,
                "    CHECK(ED_{}_{}_OFFSET == {}u);",
                karmem_codegen::names::snake(&st.name).to_uppercase(),
                karmem_codegen::names::snake(&st.fields[i].name).to_uppercase(),
                f.offset
            );
        }
    }
    program.push_str("}\n");
    std::fs::write(dir.join("edit.c"), program).unwrap();
    let c = repo_root().join("c");
    let exe = dir.join("edit");
    let out = Command::new("clang-19")
        .args(GENERATED)
        .args([
            "-g",
            "-O1",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ])
        .arg("-I")
        .arg(&c)
        .arg("-I")
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(dir.join("edit.c"))
        .arg(dir.join("ed.c"))
        .arg(c.join("karmem.c"))
        .output()
        .expect("clang-19 (scripts/setup-c.sh)");
    assert!(
        out.status.success(),
        "the edit program does not build:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run the edit program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.contains("edit: ok"),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
