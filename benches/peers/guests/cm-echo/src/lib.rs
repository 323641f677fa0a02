//! The Component Model peer of Karmem's WAT echo guest
//! (`karmem_testkit::wat_guest::echo_guest`): the world of
//! `../../wit/echo.wit`. Built as a core module; `componentize` (in the
//! benchmark's workspace) wraps it into a component.

wit_bindgen::generate!({
    world: "echo",
    path: "../../wit",
});

struct Echo;

impl Guest for Echo {
    fn nop() {}

    /// The canonical ABI has already copied the list into guest memory
    /// (through `cabi_realloc`); returning the `Vec` hands the same buffer
    /// back, which the host lifts (copies) out.
    fn echo(x: Vec<u8>) -> Vec<u8> {
        x
    }
}

export!(Echo);
