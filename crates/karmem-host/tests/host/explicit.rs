//! `isolation` and `hostile` again, under explicit bounds checks with a
//! small reservation (main.rs): the same files, reaching this module's own
//! copy of `common` (and so its own runtime) through `super::common`.

use karmem_host::{BoundsChecks, Instances};

/// 128 MiB: room for the largest memory these tests ask for (a 69 MiB
/// result under a 128 MiB limit), against guard pages' 4 GiB + 64 MiB.
const BOUNDS: BoundsChecks = BoundsChecks::Explicit {
    reservation: 128 << 20,
};
const INSTANCES: Instances = Instances::OnDemand;

// Loading these files a second time is the point (clippy's
// duplicate_mod): each copy is a module of its own, with its own runtime.
// Helpers only the top-level modules use are unused in this copy.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "common.rs"]
mod common;
#[allow(clippy::duplicate_mod)]
#[path = "hostile.rs"]
mod hostile;
#[allow(clippy::duplicate_mod)]
#[path = "isolation.rs"]
mod isolation;
