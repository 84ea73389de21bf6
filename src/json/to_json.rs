//! Values written to JSON by hand, in place of derived `Serialize` impls: each would be one more
//! instance of serde's serializer in the wasm binary. Each type's JSON form is what its derive
//! writes (members in declaration order, `None` as `null` or left out as its attributes say),
//! written as text ([`ToJson::push_json`], what JS receives: no value is built or cloned for
//! it) or built as a [`Value`] ([`ToJson::to_json`], what `json!` takes).

use super::{push_quoted, push_value, Map, Value};

/// A type that has a JSON form.
pub trait ToJson {
    /// Appends the JSON form's text to `out`.
    fn push_json(&self, out: &mut String);

    /// The JSON form as a value (read back from its text unless the type builds it directly).
    /// Not in the trait object's vtable: only the text is written through `dyn ToJson`.
    fn to_json(&self) -> Value
    where
        Self: Sized,
    {
        super::parse(&json_text(self)).unwrap_or_default()
    }
}

/// The JSON form's text.
pub fn json_text(v: &dyn ToJson) -> String {
    let mut out = String::new();
    v.push_json(&mut out);
    out
}

impl ToJson for Value {
    fn push_json(&self, out: &mut String) {
        push_value(out, self);
    }

    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl<T: ToJson> ToJson for &T {
    fn push_json(&self, out: &mut String) {
        (**self).push_json(out);
    }

    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

/// `None` is `null`.
impl<T: ToJson> ToJson for Option<T> {
    fn push_json(&self, out: &mut String) {
        match self {
            Some(v) => v.push_json(out),
            None => out.push_str("null"),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Some(v) => v.to_json(),
            None => Value::Null,
        }
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn push_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.push_json(out);
        }
        out.push(']');
    }

    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
}

impl ToJson for Map {
    fn push_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        for (key, value) in self.iter() {
            object = object.with(key, value);
        }
        object.end();
    }

    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl ToJson for String {
    fn push_json(&self, out: &mut String) {
        push_quoted(out, self);
    }

    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl ToJson for &str {
    fn push_json(&self, out: &mut String) {
        push_quoted(out, self);
    }

    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

/// Numbers and booleans: their `Value::from`.
macro_rules! to_json_by_copy {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn push_json(&self, out: &mut String) {
                push_value(out, &self.to_json());
            }

            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_by_copy!(bool, u8, u16, u32, u64, usize, i32, i64, f64);

/// A JSON object's text, written member by member into the text it is part of; [`Object::end`]
/// closes it.
#[must_use = "an object is closed by `end`"]
pub struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    /// Opens an object at the end of `out`.
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    /// Adds the member `key` (one copy in the binary for every type of value).
    pub fn with(mut self, key: &str, value: &dyn ToJson) -> Self {
        self.key(key);
        value.push_json(self.out);
        self
    }

    /// Adds the member `key` when there is a value (`skip_serializing_if = "Option::is_none"`).
    pub fn with_some<T: ToJson>(self, key: &str, value: &Option<T>) -> Self {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The one copy of a member's start (`,"key":`) every `with` shares.
    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        push_quoted(self.out, key);
        self.out.push(':');
    }

    /// Closes the object.
    pub fn end(self) {
        self.out.push('}');
    }
}
