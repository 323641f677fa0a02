//! Typed values from and to the vectors' JSON, NaN and infinities included.
//!
//! The generated types derive `serde::Deserialize`, but `serde_json::Value`
//! cannot hold a non-finite float and refuses a string where an `f32`/`f64`
//! is expected. The vectors write NaN and ±infinity as the strings of
//! `karmem_json::NON_FINITE` (testdata/vectors/README.md), so this
//! deserializer wraps a `Value` and behaves exactly like `serde_json`'s,
//! except that a float asked for as one of those strings gets its exact
//! bits. Only a field the generated type declares as a float reads a
//! string that way: text such as `"NaN"` in a `[]char` field stays text.
//!
//! The other way, `serde_json::to_value` writes a non-finite float as
//! `null` (indistinguishable from an absent union); [`to_value`] is
//! `serde_json`'s serializer with floats written as the vectors write them.

use serde::de::value::{MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
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
            Value::Object(map) => {
                MapDeserializer::new(map.into_iter().map(|(k, v)| (Key(k), Json(v))))
                    .deserialize_any(visitor)
            }
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

/// An object's key: a field name, or a map key, which is a number written
/// as text when the map's keys are numbers (testdata/vectors/README.md).
struct Key(String);

impl<'de> IntoDeserializer<'de, Error> for Key {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// Integer requests parse the key; anything else sees the text.
macro_rules! number_keys {
    ($($method:ident $visit:ident $ty:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$ty>() {
                Ok(n) => visitor.$visit(n),
                Err(_) => visitor.visit_string(self.0),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for Key {
    type Error = Error;

    /// A number if the text is one (an enum key without a name in this
    /// schema), else the text.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Ok(n) = self.0.parse::<u64>() {
            visitor.visit_u64(n)
        } else if let Ok(n) = self.0.parse::<i64>() {
            visitor.visit_i64(n)
        } else {
            visitor.visit_string(self.0)
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    number_keys! {
        deserialize_u8 visit_u8 u8; deserialize_u16 visit_u16 u16;
        deserialize_u32 visit_u32 u32; deserialize_u64 visit_u64 u64;
        deserialize_i8 visit_i8 i8; deserialize_i16 visit_i16 i16;
        deserialize_i32 visit_i32 i32; deserialize_i64 visit_i64 i64;
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        bool i128 u128 f32 f64 char bytes byte_buf option unit unit_struct
        seq tuple tuple_struct map struct enum ignored_any
    }
}

/// A generated object as the vectors' JSON: `serde_json::to_value`, except
/// that NaN and the infinities are the strings of `karmem_json::NON_FINITE`
/// (any NaN is `"NaN"`, as the JSON codec writes it).
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(Floats(serde_json::value::Serializer))
}

/// `S` (a serializer, or one of its compound states) with every float
/// below it that is not finite written as its name in the vectors
/// (`karmem_json::non_finite_name`).
struct Floats<S>(S);

/// A value to be serialized through [`Floats`], whatever serializer its
/// container was given.
struct Wrapped<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for Wrapped<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Floats(serializer))
    }
}

/// Methods that take no value below them: passed on unchanged.
macro_rules! plain {
    ($($method:ident($($ty:ty)?);)*) => {$(
        fn $method(self $(, v: $ty)?) -> Result<S::Ok, S::Error> {
            self.0.$method($(v as $ty)?)
        }
    )*};
}

/// Methods that begin a compound value: its state is wrapped in turn.
macro_rules! starts {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $state:ident;)*) => {$(
        fn $method(self, $($arg: $ty),*) -> Result<Self::$state, S::Error> {
            self.0.$method($($arg),*).map(Floats)
        }
    )*};
}

impl<S: Serializer> Serializer for Floats<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Floats<S::SerializeSeq>;
    type SerializeTuple = Floats<S::SerializeTuple>;
    type SerializeTupleStruct = Floats<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Floats<S::SerializeTupleVariant>;
    type SerializeMap = Floats<S::SerializeMap>;
    type SerializeStruct = Floats<S::SerializeStruct>;
    type SerializeStructVariant = Floats<S::SerializeStructVariant>;

    plain! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_i128(i128); serialize_u8(u8); serialize_u16(u16);
        serialize_u32(u32); serialize_u64(u64); serialize_u128(u128); serialize_char(char);
        serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
    }

    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        match karmem_json::non_finite_name(v as f64) {
            Some(name) => self.0.serialize_str(name),
            None => self.0.serialize_f32(v),
        }
    }

    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        match karmem_json::non_finite_name(v) {
            Some(name) => self.0.serialize_str(name),
            None => self.0.serialize_f64(v),
        }
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Wrapped(v))
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, index, variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Wrapped(v))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Wrapped(v))
    }

    starts! {
        serialize_seq(len: Option<usize>) -> SerializeSeq;
        serialize_tuple(len: usize) -> SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> SerializeMap;
        serialize_struct(name: &'static str, len: usize) -> SerializeStruct;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> SerializeStructVariant;
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// The compound states: every element, key and field goes through
/// [`Wrapped`].
macro_rules! compound {
    ($($trait:ident { $($method:ident($($arg:ident: $ty:ty),*);)* })*) => {$(
        impl<S: $trait> $trait for Floats<S> {
            type Ok = S::Ok;
            type Error = S::Error;
            $(
                fn $method<T: Serialize + ?Sized>(
                    &mut self,
                    $($arg: $ty,)*
                    v: &T,
                ) -> Result<(), S::Error> {
                    self.0.$method($($arg,)* &Wrapped(v))
                }
            )*
            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    )*};
}

compound! {
    SerializeSeq { serialize_element(); }
    SerializeTuple { serialize_element(); }
    SerializeTupleStruct { serialize_field(); }
    SerializeTupleVariant { serialize_field(); }
    SerializeMap { serialize_key(); serialize_value(); }
    SerializeStruct { serialize_field(key: &'static str); }
    SerializeStructVariant { serialize_field(key: &'static str); }
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

    #[derive(serde::Serialize)]
    enum Shape {
        Circle { r: f32 },
        Pair(f64, f32),
    }

    #[derive(serde::Serialize)]
    struct Out {
        a: f32,
        b: Vec<f64>,
        t: String,
        o: Option<[f32; 2]>,
        none: Option<f32>,
        shapes: Vec<Option<Shape>>,
    }

    #[test]
    fn non_finite_floats_are_written_as_the_vectors_write_them() {
        let signed_nan = f32::from_bits(0xffc0_0001);
        let v = to_value(&Out {
            a: f32::NAN,
            b: vec![f64::INFINITY, f64::NEG_INFINITY, -0.0, 1.5],
            t: "NaN".into(),
            o: Some([f32::NEG_INFINITY, signed_nan]),
            none: None,
            shapes: vec![
                Some(Shape::Circle { r: f32::INFINITY }),
                None,
                Some(Shape::Pair(f64::NAN, 2.0)),
            ],
        })
        .unwrap();
        assert_eq!(
            v,
            json!({
                "a": "NaN",
                "b": ["Infinity", "-Infinity", -0.0, 1.5],
                "t": "NaN",
                "o": ["-Infinity", "NaN"],
                "none": null,
                "shapes": [{"Circle": {"r": "Infinity"}}, null, {"Pair": ["NaN", 2.0]}],
            })
        );
        // `-0.0` keeps its sign, as in the vectors.
        assert!(v["b"][2].as_f64().unwrap().is_sign_negative());
        // And back: the strings give the canonical bits.
        let s: S = from_value(v).unwrap();
        assert_eq!(s.a.to_bits(), 0x7fc0_0000);
        assert_eq!(s.o.unwrap()[1].to_bits(), 0x7fc0_0000);
    }

    #[test]
    fn other_strings_are_still_refused_as_floats() {
        let r: Result<S, _> = from_value(json!({ "a": "nan", "b": [], "t": "" }));
        assert!(r.is_err());
    }
}
