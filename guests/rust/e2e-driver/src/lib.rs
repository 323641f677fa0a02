//! E2E guest that imports Echo, Counter, Workers and Dyn and runs one
//! guest→guest scenario per `Driver.run` command, describing the outcome
//! as text for the host-side test to check.

// Generated bindings: a guest uses only part of them.
#[allow(dead_code)]
mod e2e {
    include!(concat!(env!("OUT_DIR"), "/e2e_guest.rs"));
}

use e2e::{Num, Text, TextView};
use karmem_guest::{CallError, Error, Status};

#[derive(Default)]
struct Driver;

fn text(value: String) -> Text {
    Text { value }
}

impl e2e::driver::Driver for Driver {
    fn run(&mut self, cmd: TextView<'_, karmem::Trusted>) -> Result<Text, Error> {
        let (op, arg) = cmd.value().split_once(':').unwrap_or((cmd.value(), ""));
        let n = Num {
            value: arg.parse().unwrap_or(0),
        };
        match op {
            // The call benchmarks' baselines (crates/karmem-e2e/benches):
            // the driver's own cost without a guest→guest call, then the
            // cheapest guest→guest call.
            "idle" => Ok(text(String::new())),
            "nop" => {
                e2e::echo::Client.nop()?;
                Ok(text(String::new()))
            }
            "echo" => {
                let reply = e2e::echo::Client.echo(&Text {
                    value: arg.to_string(),
                })?;
                Ok(text(format!("echo={}", reply.view().value())))
            }
            "fail" => match e2e::echo::Client.fail(&Text {
                value: arg.to_string(),
            }) {
                Err(CallError::Callee {
                    status, message, ..
                }) => Ok(text(format!("{status:?}: {message}"))),
                Err(e) => Err(e.into()),
                Ok(_) => Err(Error::new("fail succeeded")),
            },
            "add" => {
                let reply = e2e::counter::Client.add(&n)?;
                Ok(text(format!("total={}", reply.view().value())))
            }
            "fanout" => {
                // One line per callee: index, status, result or message.
                let lines: Vec<String> = e2e::workers::Client
                    .work(&n)?
                    .into_iter()
                    .map(|r| match r.status {
                        Status::Ok => format!("{} Ok {}", r.callee, r.reply.view().value()),
                        s => format!("{} {s:?} {}", r.callee, r.message),
                    })
                    .collect();
                Ok(text(lines.join("\n")))
            }
            "dyn-a" => {
                let reply = e2e::dyn_::Client.a(&n)?;
                Ok(text(format!("a={}", reply.view().value())))
            }
            "dyn-b" => match e2e::dyn_::Client.b(&n) {
                Err(CallError::Callee { status, .. }) => Ok(text(format!("b: {status:?}"))),
                Err(e) => Err(e.into()),
                Ok(r) => Ok(text(format!("b={}", r.view().value()))),
            },
            "shared" => {
                // Place a message in our window of the shared region and
                // pass it by offset: the exporter reads it in place.
                let w = karmem_guest::window("e2e.shm").ok_or("no window of e2e.shm")?;
                let slice = w.write_message(
                    256,
                    &e2e::Blob {
                        marker: n.value as u32,
                        data: vec![1, 2, 3],
                    },
                )?;
                let seen = e2e::shared::Client.inspect(slice)?;
                let seen = seen.view();
                Ok(text(format!(
                    "offset={} in_window={} marker={} sum={}",
                    seen.offset(),
                    seen.in_window(),
                    seen.marker(),
                    seen.sum()
                )))
            }
            "stamp" => {
                // A region-bound result arrives as a pointer into our window.
                let reply = e2e::shared::Client.stamp(&n)?;
                let w = karmem_guest::window("e2e.out").ok_or("no window of e2e.out")?;
                let at = reply.bytes().as_ptr() as usize as u32 - w.ptr();
                Ok(text(format!(
                    "in_region={} at={at} marker={} data={:?}",
                    reply.is_in_region(),
                    reply.view().marker(),
                    reply.view().data()
                )))
            }
            other => Err(Error::new(format!("unknown command `{other}`"))),
        }
    }
}

karmem_guest::module! {
    exports: [e2e::driver::export::<Driver>()],
    imports: [
        e2e::echo::INFO,
        e2e::counter::INFO,
        e2e::workers::INFO,
        e2e::dyn_::INFO,
        e2e::shared::INFO,
    ],
}
