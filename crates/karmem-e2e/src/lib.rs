//! End-to-end tests of guest modules (tests/); placeholder from branch
//! goguest, replaced by helper rguest's crate when merged.
