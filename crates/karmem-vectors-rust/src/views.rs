//! A JSON printer over the generated zero-copy viewers, in the vectors'
//! conventions (testdata/vectors/README.md), so the runner can compare what
//! the viewers read, checked (`TView::root`) and trusted (after
//! `T::validate`), with every vector's value, as the C, Go and TypeScript
//! runners do. The impls for each schema's viewers are printed by build.rs
//! (`build/views.rs`); the helpers they call are here.

use karmem::{MapView, Mode};
use serde_json::{Map, Value};

/// What a viewer (or an enum value it returns) reads, as the vectors' JSON.
pub trait ViewJson {
    fn json(&self) -> Value;
}

// The printed impls; rustc's and clippy's lints apply to them as to
// hand-written code, but their closures are printed uniformly
// (`|x0| Value::from(x0)` where a function path would do).
#[allow(clippy::redundant_closure)]
mod printed {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/view_json.rs"));
}

/// A struct: its fields in declaration order.
fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Map<_, _>>(),
    )
}

/// A union value: `{"Variant": value}`.
fn variant(name: &str, value: Value) -> Value {
    let mut m = Map::new();
    m.insert(name.to_string(), value);
    Value::Object(m)
}

/// An enum value: its name where the schema has one, else its number.
fn named(name: Option<&str>, n: impl Into<Value>) -> Value {
    name.map_or_else(|| n.into(), Value::from)
}

/// A float widened exactly to `f64`; NaN and the infinities as the
/// vectors spell them (`karmem_json::NON_FINITE`), with every NaN as
/// `"NaN"` whatever its payload.
fn float(x: impl Into<f64>) -> Value {
    let x: f64 = x.into();
    if x.is_nan() {
        Value::from("NaN")
    } else if x.is_infinite() {
        Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        Value::from(x)
    }
}

/// The elements of an array's JSON (an SoA view's, in a `#bovos` array).
fn items(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        other => vec![other],
    }
}

/// A map as an object, entries in the message's order, keys as text (an
/// integer as its decimal text, an enum as its name or number). The
/// look-up by key must find each entry's own value: a miss or another
/// value adds a member no expected value has.
fn map<'a, K: Ord + 'a, V: 'a, M: Mode>(
    m: &MapView<'a, K, V, M>,
    key: impl Fn(K) -> Value,
    value: impl Fn(V) -> Value,
) -> Value {
    let mut out = Map::new();
    for (k, v) in m.iter() {
        let found = m.get(&k).map(&value);
        let (k, v) = (key(k), value(v));
        let k = match k {
            Value::String(s) => s,
            other => other.to_string(),
        };
        if found.as_ref() != Some(&v) {
            out.insert(format!("get({k}) missed"), found.unwrap_or(Value::Null));
        }
        out.insert(k, v);
    }
    Value::Object(out)
}

/// Where `got` first differs from `expected`, strictly: floats by their
/// text (so by bits: `-0.0` is not `0.0`, `1.0` is not `1`), objects with
/// their keys in the same order.
pub fn differs(expected: &Value, got: &Value, path: &str) -> Option<String> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            let (ek, gk): (Vec<_>, Vec<_>) = (e.keys().collect(), g.keys().collect());
            if ek != gk {
                return Some(format!("{path}: keys {gk:?}, expected {ek:?}"));
            }
            e.iter()
                .find_map(|(k, ev)| differs(ev, &g[k], &format!("{path}.{k}")))
        }
        (Value::Array(e), Value::Array(g)) if e.len() == g.len() => e
            .iter()
            .zip(g)
            .enumerate()
            .find_map(|(i, (ev, gv))| differs(ev, gv, &format!("{path}[{i}]"))),
        // Their texts, not `Value`'s `==`, which takes `-0.0` for `0.0`.
        _ if text(expected) == text(got) => None,
        _ => Some(format!("{path}: {got}, expected {expected}")),
    }
}

/// A leaf's JSON text: serde_json prints each `f64` in the shortest form
/// that reads back as the same bits, so equal texts are equal values.
fn text(v: &Value) -> String {
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comparison_is_strict_about_floats_and_order() {
        assert!(differs(&json!(-0.0), &json!(0.0), "v").is_some());
        assert!(differs(&json!(1.0), &json!(1), "v").is_some());
        assert!(differs(&json!(0.5), &json!(0.5), "v").is_none());
        assert!(differs(&json!(u64::MAX), &json!(u64::MAX), "v").is_none());
        let (a, b) = (json!({"A": 1, "B": 2}), json!({"B": 2, "A": 1}));
        assert!(differs(&a, &b, "v").is_some());
        assert!(differs(&json!([1, 2]), &json!([1]), "v").is_some());
        assert_eq!(float(f32::NAN), json!("NaN"));
        assert_eq!(float(-f64::INFINITY), json!("-Infinity"));
        assert_eq!(float(0.1f32), json!(0.10000000149011612));
    }
}
