//! Typed values from the vectors' JSON, NaN and infinities included.
//!
//! The generated types derive `serde::Deserialize`, but `serde_json::Value`
//! cannot hold a non-finite float and refuses a string where an `f32`/`f64`
//! is expected. The vectors write NaN and ±infinity as the strings of
//! `karmem_json::NON_FINITE` (testdata/vectors/README.md), so this
//! deserializer wraps a `Value` and behaves exactly like `serde_json`'s,
//! except that a float asked for as one of those strings gets its exact
//! bits. Only a field the generated type declares as a float reads a
//! string that way: text such as `"NaN"` in a `[]char` field stays text.

use serde::de::value::{MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Value};

/// Build a generated object from a vector's JSON value.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Json(value))
}

/// The bits `name` stands for, if it is one of the non-finite spellings.
fn non_finite(v: &Value) -> Option<(f32, f64)> {
    let Value::String(s) = v else { return None };
    karmem_json::NON_FINITE
        .iter()
        .find(|(name, _, _)| name == s)
        .map(|&(_, b32, b64)| (f32::from_bits(b32), f64::from_bits(b64)))
}

struct Json(Value);

impl<'de> IntoDeserializer<'de, Error> for Json {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> serde::Deserializer<'de> for Json {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Containers are rebuilt from wrapped children, so that floats
        // anywhere below are read by this deserializer too.
        match self.0 {
            Value::Array(items) => {
                SeqDeserializer::new(items.into_iter().map(Json)).deserialize_any(visitor)
            }
            Value::Object(map) => MapDeserializer::new(map.into_iter().map(|(k, v)| (k, Json(v))))
                .deserialize_any(visitor),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match non_finite(&self.0) {
            Some((x, _)) => visitor.visit_f32(x),
            None => self.0.deserialize_f32(visitor),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match non_finite(&self.0) {
            Some((_, x)) => visitor.visit_f64(x),
            None => self.0.deserialize_f64(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Json(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // A union is `{"Variant": value}`: one key, the variant's value wrapped.
        match self.0 {
            Value::Object(map) if map.len() == 1 => visitor.visit_enum(MapAccessDeserializer::new(
                MapDeserializer::new(map.into_iter().map(|(k, v)| (k, Json(v)))),
            )),
            other => other.deserialize_enum(name, variants, visitor),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, Debug)]
    struct S {
        a: f32,
        b: Vec<f64>,
        t: String,
        o: Option<[f32; 2]>,
    }

    #[test]
    fn non_finite_strings_are_exact_bits_only_where_a_float_is_expected() {
        let s: S = from_value(json!({
            "a": "NaN",
            "b": ["Infinity", "-Infinity", -0.0, 1.5],
            "t": "NaN",
            "o": ["-Infinity", "NaN"],
        }))
        .unwrap();
        assert_eq!(s.a.to_bits(), 0x7fc0_0000);
        let bits: Vec<u64> = s.b.iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            bits,
            [
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x8000_0000_0000_0000,
                1.5f64.to_bits()
            ]
        );
        assert_eq!(s.t, "NaN");
        let o = s.o.unwrap();
        assert_eq!((o[0].to_bits(), o[1].to_bits()), (0xff80_0000, 0x7fc0_0000));
    }

    #[test]
    fn other_strings_are_still_refused_as_floats() {
        let r: Result<S, _> = from_value(json!({ "a": "nan", "b": [], "t": "" }));
        assert!(r.is_err());
    }
}
