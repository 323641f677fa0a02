// e2e-as-caller exports e2e.Driver; its run calls e2e.Echo (direct, copied
// and region-bound arguments) and e2e.Voter (fan-out) from inside a guest,
// answering exactly as every other language's caller does
// (crates/karmem-e2e/tests/polyglot.rs).

export * from "karmem-as/assembly/guest-exports";
import * as guest from "karmem-as/assembly/guest";
import { Msg } from "../gen/e2e/e2e";
import { Driver, Echo, EchoClient, VoterClient } from "../gen/e2e/e2e_guest";

const echo = new EchoClient();
const voters = new VoterClient();

class AsDriver extends Driver {
  /** Answers `echo=<text>/<n> peek=<text>@<offset> votes=<callee>:<status>:<text>,...`. */
  run(m: Msg): Msg | null {
    const echoed = echo.echo(m);
    if (!echoed.ok) return guest.fail<Msg>("echo: " + echoed.toString());
    let text = "echo=" + echoed.value!.text + "/" + echoed.value!.number_.toString();

    // A region-bound argument is written into this module's window and
    // passed by position.
    const placed = Echo.sharedWindow().write<Msg>(m, 4096);
    if (placed == null) return null;
    const peeked = echo.peek(placed);
    if (!peeked.ok) return guest.fail<Msg>("peek: " + peeked.toString());
    text += " peek=" + peeked.value!.text + "@" + peeked.value!.number_.toString();

    const votes = voters.vote(m);
    text += " votes=";
    for (let k = 0; k < votes.length; k++) {
      const v = votes[k];
      if (k > 0) text += ",";
      text += v.callee.toString() + ":" + guest.statusName(v.status) + ":";
      text += v.ok ? v.value!.text : v.toString();
    }
    const r = new Msg();
    r.text = text;
    return r;
  }
}

guest.register(new AsDriver());
