//! How many live instances one host process holds, and what each costs
//! (docs/benchmarks.md "Density"): `density <module.wasm|wat> <count>
//! [region] [pooled] [churn=<n>]` creates `count` instances of the module's echo, one
//! application each, keeps them alive, calls each once, and prints the
//! time per instance, the resident memory, mappings and file descriptors
//! each adds, and where it stopped if it did; then drops them all and
//! creates and drops `count` (or `n`) more one at a time (an application per
//! request), and prints the time per application of that. With `region`,
//! each module is granted read access to the regions it declares (a window
//! per instance); with `pooled`, the runtime takes its memories from a pool
//! of `count` slots (`Instances::Pooled`) instead of reserving one per
//! instance.

use std::time::Instant;

use karmem_host::{
    Access, App, AppBuilder, GuestModule, Instances, ModuleOptions, Pattern, Runtime, RuntimeConfig,
};
use karmem_testkit::wat_guest::{
    echo_guest, func, iface, memory, Guest, REUSE_ALLOC, REUSE_GLOBALS,
};

fn status(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn maps() -> u64 {
    std::fs::read_to_string("/proc/self/maps")
        .map(|m| m.lines().count() as u64)
        .unwrap_or(0)
}

fn fds() -> u64 {
    // 0 when no descriptor is left to list them with.
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count() as u64)
        .unwrap_or(0)
}

/// The WAT echo with a one-page region.
fn wat_region(region: bool) -> Guest {
    let memories = if region {
        vec![memory("d.shared", Access::ReadWrite, Access::Read, 1)]
    } else {
        vec![]
    };
    let api = iface(
        "d.Echo",
        Pattern::Direct,
        memories,
        vec![func("nop", vec![], None)],
    );
    let mut g = Guest::new(vec![api], vec![])
        .func("d.Echo", "nop", "(i32.const 0)")
        .extra(REUSE_GLOBALS);
    g.alloc_prefix = REUSE_ALLOC.into();
    g
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (source, count) = match argv.as_slice() {
        [s, c, ..] => (s.as_str(), c.parse::<usize>().expect("count")),
        _ => {
            eprintln!("usage: density <module.wasm|wat> <count> [region] [pooled] [churn=<n>]");
            std::process::exit(2);
        }
    };
    let flag = |name: &str| argv[2..].iter().any(|a| a == name);
    // `churn=<n>`: how many applications the second phase makes (`count`
    // by default), e.g. to profile that phase alone.
    let churn = argv[2..]
        .iter()
        .find_map(|a| a.strip_prefix("churn="))
        .map_or(count, |n| n.parse().expect("churn=<n>"));
    let region = flag("region");
    let pooled = flag("pooled");
    let instances = if pooled {
        Instances::pooled(u32::try_from(count).expect("count"))
    } else {
        Instances::OnDemand
    };
    let rt = Runtime::new(RuntimeConfig {
        instances,
        ..RuntimeConfig::default()
    })
    .expect("runtime");
    let module: GuestModule = if source == "wat" {
        let g = if region {
            wat_region(region)
        } else {
            echo_guest()
        };
        g.load_into(&rt, "m").expect("load")
    } else {
        rt.load_file("m", source.as_ref()).expect("load")
    };
    let desc = module.descriptor().clone();
    let (iface_name, function) = desc
        .exports
        .iter()
        .find_map(|i| {
            i.functions
                .iter()
                .find(|f| f.name == "nop")
                .map(|f| (i.name.clone(), f.name.clone()))
        })
        .expect("a `nop` export");
    let mut options = ModuleOptions {
        max_instances: u32::MAX,
        ..ModuleOptions::default()
    };
    if region {
        for m in &desc.memories {
            options = options.grant(&m.name, Access::Read);
        }
    }
    let build = || {
        let mut b = AppBuilder::new(&rt);
        b.module_with(module.clone(), options.clone())
            .warm_up(false);
        b.call_budget(karmem_host::CallBudget {
            instances: u32::MAX,
            ..Default::default()
        });
        b.build()
    };
    let (rss0, maps0, fds0) = (status("VmRSS:"), maps(), fds());
    let started = Instant::now();
    let mut apps: Vec<App> = Vec::new();
    let mut made = 0usize;
    let mut stop = None;
    for _ in 0..count {
        let app = match build() {
            Ok(a) => a,
            Err(e) => {
                stop = Some(format!("build: {e}"));
                break;
            }
        };
        let f = app.export("m", &iface_name, &function).expect("export");
        if let Err(e) = app.invoke(&f, &[]) {
            stop = Some(format!("call: {e}"));
            break;
        }
        apps.push(app);
        made += 1;
    }
    let took = started.elapsed();
    let per = |v: u64| v as f64 / made.max(1) as f64;
    println!(
        "{source}{}{}: {made} live instances in {:.2} s, {:.1} µs each; per instance {:.1} KiB RSS, {:.2} mappings, {:.2} fds{}",
        if region { " +region" } else { "" },
        if pooled { " pooled" } else { "" },
        took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / made.max(1) as f64,
        per(status("VmRSS:").saturating_sub(rss0)),
        per(maps().saturating_sub(maps0)),
        per(fds().saturating_sub(fds0)),
        stop.map(|s| format!("; stopped: {s}")).unwrap_or_default()
    );
    drop(apps);
    // An application per request: build, call, drop, `churn` times.
    let started = Instant::now();
    let mut churned = 0usize;
    for _ in 0..churn {
        let app = match build() {
            Ok(a) => a,
            Err(e) => {
                println!("churn stopped: build: {e}");
                break;
            }
        };
        let f = app.export("m", &iface_name, &function).expect("export");
        app.invoke(&f, &[]).expect("call");
        churned += 1;
    }
    println!(
        "  one at a time: {:.1} µs per application built, called once and dropped",
        started.elapsed().as_secs_f64() * 1e6 / churned.max(1) as f64
    );
}
