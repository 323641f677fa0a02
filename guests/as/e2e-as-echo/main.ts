// e2e-as-echo exports e2e.Echo and e2e.Voter (guests/polyglot.km) with the
// behaviour of every other language's echo, for the cross-language tests
// (crates/karmem-e2e/tests/polyglot.rs).

export * from "karmem-as/assembly/guest-exports";
import * as guest from "karmem-as/assembly/guest";
import { Msg } from "../gen/e2e/e2e";
import { Echo, Voter } from "../gen/e2e/e2e_guest";

class AsEcho extends Echo {
  echo(m: Msg): Msg | null {
    const r = new Msg();
    r.text = m.text;
    r.number_ = m.number_ + 1;
    return r;
  }

  /** Proves the argument was not copied: its bytes lie in this module's
   * window of the region, and the reply says where. */
  peek(m: Msg): Msg | null {
    const at = Echo.sharedWindow().offsetOf(guest.argument(0));
    if (at < 0) return guest.fail<Msg>("peek: the argument is not in the shared window");
    const r = new Msg();
    r.text = m.text;
    r.number_ = <u32>at;
    return r;
  }

  fail(m: Msg): Msg | null {
    return guest.fail<Msg>("fail: " + m.text);
  }

  /** Returns its result in place in the `out` region: the host passes it
   * on by position, without a copy. */
  stamp(m: Msg): guest.Slice | null {
    const r = new Msg();
    r.text = m.text;
    r.number_ = m.number_ + 100;
    return Echo.outWindow().write<Msg>(r);
  }

  /** Writes into a read-only window, the way the text says: the host
   * must stop it (memory.fill, memory.copy or plain stores). */
  scribble(m: Msg): void {
    const s = guest.argument(0);
    if (m.text == "fill") {
      memory.fill(s.ptr, 0, <usize>s.length);
    } else if (m.text == "copy") {
      const src = new ArrayBuffer(<i32>s.length);
      memory.fill(changetype<usize>(src), 0xee, <usize>s.length);
      memory.copy(s.ptr, changetype<usize>(src), <usize>s.length);
    } else {
      for (let i: usize = 0; i < <usize>s.length; i++) store<u8>(s.ptr + i, 0xee);
    }
  }

  /** Does nothing: the cheapest call there is. */
  nop(): void {}

  access(m: Msg): Msg | null {
    const r = new Msg();
    r.text = m.text;
    r.number_ = guest.window(m.text).access;
    return r;
  }
}

class AsVoter extends Voter {
  /** Answers "as"; a vote on the text "trap" traps, so the fan-out tests
   * have a member that fails with TRAP, and one on "abort" fails an
   * assertion (AssemblyScript's `abort`, tests/as_guests.rs). */
  vote(q: Msg): Msg | null {
    if (q.text == "trap") unreachable();
    assert(q.text != "abort", "vote: asked to abort");
    const r = new Msg();
    r.text = "as";
    return r;
  }
}

guest.register(new AsEcho());
guest.register(new AsVoter());
