//! `Serialize`/`Deserialize` for [`Stochastic<T>`] (feature `serde`).
//!
//! A value keeps its three samples and its flags, bit for bit:
//!
//! - human-readable formats (JSON, TOML, ...): `{"samples": [x, y, z], "flags": [kind, ...]}`,
//!   the flags as the kinds' names, as the [`Report`](crate::Report) writes them
//!   (`"division"`, ..., `"cancellation"`); a non-finite sample, which JSON has no number for,
//!   is the string `"inf"`, `"-inf"` or `"NaN"` (a NaN's payload is not kept);
//! - binary formats (postcard, bincode, ...): the tuple `(x, y, z, flag byte)`.
//!
//! Deserializing from a human-readable format also accepts a plain number, the value an `f32`
//! or `f64` field would load, exact (three equal samples, no flags), so that existing input
//! files load into structs whose fields became stochastic; and a bare `[x, y, z]`.
//!
//! The feature also turns on serde_json's `float_roundtrip`, without which serde_json may read
//! a number back one unit in the last place off.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use stoch_core::Sf64;
//!
//! #[derive(Serialize, Deserialize)]
//! struct Point {
//!     x: Sf64,
//!     y: Sf64,
//! }
//! let p: Point = serde_json::from_str(r#"{"x": 0.1, "y": {"samples": [1.0, 1.5, 2.0], "flags": []}}"#).unwrap();
//! assert_eq!(p.x.samples(), [0.1; 3]);
//! let third = Sf64::new(1.0) / 3.0;
//! let json = serde_json::to_string(&third).unwrap();
//! let back: Sf64 = serde_json::from_str(&json).unwrap();
//! assert_eq!(back.samples(), third.samples());
//! ```

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::instability::{Flags, Instability};
use crate::{StochFloat, Stochastic};

/// A sample in a human-readable format: a number, or a string for a non-finite one.
struct Sample<T>(T);

impl<T: StochFloat + Serialize> Serialize for Sample<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.is_finite() {
            x.serialize(s)
        } else if x.is_nan() {
            s.serialize_str("NaN")
        } else if x > T::ZERO {
            s.serialize_str("inf")
        } else {
            s.serialize_str("-inf")
        }
    }
}

impl<'de, T: StochFloat> Deserialize<'de> for Sample<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<T: StochFloat> Visitor<'_> for V<T> {
            type Value = Sample<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number, or \"inf\", \"-inf\" or \"NaN\"")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Sample<T>, E> {
                Ok(Sample(T::from_f64(x)))
            }
            fn visit_f32<E: de::Error>(self, x: f32) -> Result<Sample<T>, E> {
                Ok(Sample(T::from_f64(x.into())))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Sample<T>, E> {
                Ok(Sample(T::from_f64(x as f64)))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Sample<T>, E> {
                Ok(Sample(T::from_f64(x as f64)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Sample<T>, E> {
                match s {
                    "NaN" | "nan" => Ok(Sample(T::NAN)),
                    "inf" | "+inf" | "Infinity" => Ok(Sample(T::INFINITY)),
                    "-inf" | "-Infinity" => Ok(Sample(T::NEG_INFINITY)),
                    _ => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
                }
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// The flags as the list of the kinds' names, as the report names them.
struct FlagNames(Flags);

impl Serialize for FlagNames {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

impl<'de> Deserialize<'de> for FlagNames {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let kinds = Vec::<Instability>::deserialize(d)?;
        Ok(FlagNames(kinds.into_iter().fold(Flags::EMPTY, Flags::with)))
    }
}

impl<T: StochFloat + Serialize> Serialize for Stochastic<T> {
    /// Human-readable formats: `{"samples": [x, y, z], "flags": [kind, ...]}`; binary ones:
    /// the tuple `(x, y, z, flag byte)`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [x, y, z] = self.s();
        if s.is_human_readable() {
            let mut st = s.serialize_struct("Stochastic", 2)?;
            st.serialize_field("samples", &[Sample(x), Sample(y), Sample(z)])?;
            st.serialize_field("flags", &FlagNames(self.flags()))?;
            st.end()
        } else {
            let mut t = s.serialize_tuple(4)?;
            t.serialize_element(&x)?;
            t.serialize_element(&y)?;
            t.serialize_element(&z)?;
            t.serialize_element(&self.flags().bits())?;
            t.end()
        }
    }
}

const FIELDS: &[&str] = &["samples", "flags"];

struct StochVisitor<T> {
    human: bool,
    t: PhantomData<T>,
}

impl<'de, T: StochFloat + Deserialize<'de>> Visitor<'de> for StochVisitor<T> {
    type Value = Stochastic<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.human {
            f.write_str(
                "a number, [x, y, z], or {\"samples\": [x, y, z], \"flags\": [kind, ...]} \
                 (a stochastic value)",
            )
        } else {
            f.write_str("the tuple (x, y, z, flag byte) of a stochastic value")
        }
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Stochastic<T>, E> {
        Ok(Stochastic::new(T::from_f64(x)))
    }
    fn visit_i64<E: de::Error>(self, x: i64) -> Result<Stochastic<T>, E> {
        Ok(Stochastic::new(T::from_f64(x as f64)))
    }
    fn visit_u64<E: de::Error>(self, x: u64) -> Result<Stochastic<T>, E> {
        Ok(Stochastic::new(T::from_f64(x as f64)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Stochastic<T>, E> {
        Sample::<T>::deserialize(de::value::StrDeserializer::<E>::new(s))
            .map(|x| Stochastic::new(x.0))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Stochastic<T>, A::Error> {
        let mut s = [T::ZERO; 3];
        for (i, x) in s.iter_mut().enumerate() {
            *x = if self.human {
                seq.next_element::<Sample<T>>()?.map(|x| x.0)
            } else {
                seq.next_element::<T>()?
            }
            .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        let flags = if self.human {
            Flags::EMPTY
        } else {
            let bits: u8 = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(3, &self))?;
            check_bits(bits)?
        };
        if self.human && seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(4, &self));
        }
        Ok(Stochastic::from_parts(s, flags))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Stochastic<T>, A::Error> {
        let mut samples: Option<[Sample<T>; 3]> = None;
        let mut flags = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "samples" if samples.is_some() => {
                    return Err(de::Error::duplicate_field("samples"))
                }
                "samples" => samples = Some(map.next_value()?),
                "flags" if flags.is_some() => return Err(de::Error::duplicate_field("flags")),
                "flags" => flags = Some(map.next_value::<FlagNames>()?.0),
                other => return Err(de::Error::unknown_field(other, FIELDS)),
            }
        }
        let s = samples.ok_or_else(|| de::Error::missing_field("samples"))?;
        Ok(Stochastic::from_parts(
            s.map(|x| x.0),
            flags.unwrap_or(Flags::EMPTY),
        ))
    }
}

/// A flag byte with the unused top bit set is corrupt input, not a value.
fn check_bits<E: de::Error>(bits: u8) -> Result<Flags, E> {
    if bits & 0x80 != 0 {
        return Err(E::invalid_value(
            de::Unexpected::Unsigned(bits.into()),
            &"a flag byte below 0x80 (one bit per instability kind)",
        ));
    }
    Ok(Flags::from_bits(bits))
}

impl<'de, T: StochFloat + Deserialize<'de>> Deserialize<'de> for Stochastic<T> {
    /// The forms [`Serialize`] writes; from a human-readable format also a plain number (exact)
    /// or `[x, y, z]`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let human = d.is_human_readable();
        let v = StochVisitor {
            human,
            t: PhantomData,
        };
        if human {
            d.deserialize_any(v)
        } else {
            d.deserialize_tuple(4, v)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flags, Instability, Sf32, Sf64};

    #[test]
    fn json_form_names_the_flags_like_the_report() {
        let x = Sf64::from_parts(
            [1.0, 1.5, f64::NEG_INFINITY],
            Flags::EMPTY.with(Instability::MathFunction),
        );
        let json = serde_json::to_string(&x).unwrap();
        assert_eq!(
            json,
            r#"{"samples":[1.0,1.5,"-inf"],"flags":["math_function"]}"#
        );
        let back: Sf64 = serde_json::from_str(&json).unwrap();
        assert_eq!(back.samples(), x.samples());
        assert_eq!(back.flags(), x.flags());
    }

    #[test]
    fn plain_numbers_load_exactly() {
        let x: Sf64 = serde_json::from_str("0.1").unwrap();
        assert_eq!(x.samples(), [0.1; 3]);
        assert!(x.flags().is_empty());
        let n: Sf32 = serde_json::from_str("3").unwrap();
        assert_eq!(n.samples(), [3.0; 3]);
        // An f32 field reads the number rounded to nearest; so does an Sf32 one.
        let y: Sf32 = serde_json::from_str("0.1").unwrap();
        assert_eq!(y.samples(), [0.1f32; 3]);
        let v: Sf64 = serde_json::from_str("[1, 2, 3]").unwrap();
        assert_eq!(v.samples(), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn bad_input_is_an_error_that_says_what_was_expected() {
        for (bad, says) in [
            (r#""one""#, "expected a number"),
            ("[1, 2]", "invalid length 2"),
            ("[1, 2, 3, 4]", "invalid length 4"),
            (
                r#"{"samples": [1, 2, 3], "flags": ["nope"]}"#,
                "unknown variant `nope`",
            ),
            (r#"{"flags": []}"#, "missing field `samples`"),
            (r#"{"samples": [1, 2, 3], "x": 1}"#, "unknown field `x`"),
            ("true", "a number, [x, y, z], or"),
        ] {
            let e = serde_json::from_str::<Sf64>(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // A corrupt flag byte in a binary form.
        let e =
            postcard::from_bytes::<Sf32>(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]).unwrap_err();
        assert!(matches!(e, postcard::Error::SerdeDeCustom), "{e:?}");
    }
}
