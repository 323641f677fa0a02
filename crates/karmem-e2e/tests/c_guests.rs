//! C guest modules (guests/c/, built by scripts/build-guests-c.sh into
//! guests/out/) on the host: the C arena bot, the compute guest of the
//! bounds-check benchmark, and the descriptors the C guest bindings write. The C echo and caller are tested with every other
//! language's in tests/polyglot.rs (values, in-place arguments, region
//! results, read-only windows, errors, bad input, direct and fan-out calls
//! both ways, trapping members).

mod common;

use common::{module, runtime, Codec};
use karmem_host::{App, AppBuilder, Arg, BoundsChecks, ModuleOptions, Runtime, RuntimeConfig};
use serde_json::{json, Value};

/// Calls `function` of the C echo or the arena bot with one copied message
/// and decodes its result.
fn call_json(c: &Codec, app: &App, module: &str, function: &str, arg: Value) -> Value {
    let (iface, arg_type, result_type) = if function == "join" {
        ("arena.Bot", "Rules", "Hello")
    } else {
        ("e2e.Echo", "Msg", "Msg")
    };
    let msg = c.encode(arg_type, arg);
    let out = app
        .call(module, iface, function, &[Arg::Bytes(&msg)])
        .unwrap_or_else(|e| panic!("{module} {function}: {e}"));
    c.decode(result_type, &out.to_vec(app).unwrap())
}

/// An application of `modules` (each granted what its roles ask for),
/// with `e2e.Echo` of every importer bound to `echo` when given.
fn application(modules: &[&str], echo: Option<&str>) -> App {
    let mut b = AppBuilder::new(runtime());
    for name in modules {
        let m = module(name);
        let options = karmem_e2e::trusting(&m, ModuleOptions::default());
        b.module_with(m, options);
    }
    if let Some(exporter) = echo {
        b.bind_all("e2e.Echo", exporter);
    }
    b.build().unwrap()
}

#[test]
fn columnist_joins_and_walks_its_column_first() {
    let c = Codec::load("examples/arena/arena.km");
    let app = application(&["arena-columnist"], None);
    let hello = call_json(
        &c,
        &app,
        "arena-columnist",
        "join",
        json!({"Width": 8, "Height": 8, "Ticks": 10}),
    );
    assert_eq!(hello["Name"], "columnist");
    assert_eq!(hello["Language"], "C");

    let cases = [
        (json!([{"X": 5, "Y": 2}, {"X": 0, "Y": 0}]), "East"),
        (json!([{"X": 4, "Y": 0}, {"X": 7, "Y": 7}]), "North"),
        (json!([{"X": 0, "Y": 3}]), "South"),
        (json!([{"X": 0, "Y": 2}]), "West"),
        (json!([{"X": 2, "Y": 2}]), "Stay"),
        (json!([]), "Stay"),
        // A coin off the board is ignored.
        (json!([{"X": 2, "Y": -1}, {"X": 2, "Y": 5}]), "South"),
    ];
    for (coins, want) in cases {
        let state = common::board_state(&c, &app, "columnist", coins.clone());
        let out = app
            .call(
                "arena-columnist",
                "arena.Bot",
                "think",
                &[Arg::Region(state)],
            )
            .unwrap();
        let got = c.decode("Order", &out.to_vec(&app).unwrap());
        assert_eq!(got["Move"], want, "coins {coins}");
    }
}

/// The compute guest (guests/c/polybench) returns, for every kernel, the
/// checksum of the same kernels.c built natively (both native builds),
/// bit for bit, under both bounds-check strategies: the benchmark that compares their speed
/// (benches/bounds.rs) compares the same computation.
#[test]
fn polybench_kernels_agree_with_native_under_both_bounds_checks() {
    use karmem_e2e::polybench::Checksum;
    let native: Vec<_> = karmem_e2e::NATIVE_BUILDS
        .iter()
        .map(|lib| karmem_e2e::native_kernels(lib).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let want: Vec<f64> = native[0].iter().map(|kernel| kernel()).collect();
    for (lib, kernels) in karmem_e2e::NATIVE_BUILDS.iter().zip(&native) {
        for (((_, symbol), kernel), want) in karmem_e2e::KERNELS.iter().zip(kernels).zip(&want) {
            assert!(want.is_finite() && *want != 0.0, "{symbol}: {want}");
            assert_eq!(kernel().to_bits(), want.to_bits(), "{lib} {symbol}");
        }
    }
    let wasm_path = karmem_e2e::guest_path("polybench.wasm").unwrap_or_else(|e| panic!("{e}"));
    for bounds_checks in [
        BoundsChecks::GuardPages,
        BoundsChecks::Explicit {
            reservation: 16 << 20,
        },
    ] {
        let rt = Runtime::new(RuntimeConfig {
            cache_dir: None,
            bounds_checks,
            ..RuntimeConfig::default()
        })
        .unwrap();
        let module = rt.load_file("polybench", &wasm_path).unwrap();
        let app = AppBuilder::new(&rt).module(module).build().unwrap();
        for ((function, _), want) in karmem_e2e::KERNELS.iter().zip(&want) {
            let out = app
                .call("polybench", "polybench.Kernels", function, &[])
                .unwrap_or_else(|e| panic!("{bounds_checks:?} {function}: {e}"));
            let got = Checksum::from_bytes(&out.to_vec(&app).unwrap()).unwrap();
            assert_eq!(
                got.value.to_bits(),
                want.to_bits(),
                "{bounds_checks:?} {function}: {} in the guest, {want} natively",
                got.value
            );
        }
    }
}
