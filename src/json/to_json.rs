//! Values written to JSON by hand, in place of derived `Serialize` impls: each would be one more
//! instance of serde's serializer in the wasm binary. Each `to_json` gives what the type's derive
//! writes (members in declaration order, `None` as `null` or left out as its attributes say).

use serde_json::{Map, Value};

/// A type that has a JSON form.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

/// `None` is `null`.
impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::to_json)
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl ToJson for str {
    fn to_json(&self) -> Value {
        Value::String(self.to_owned())
    }
}

impl ToJson for u64 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl ToJson for i64 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl ToJson for u16 {
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

/// A JSON object built member by member.
#[derive(Default)]
pub struct Object(Map<String, Value>);

impl Object {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the member `key`.
    pub fn with(mut self, key: &str, value: &(impl ToJson + ?Sized)) -> Self {
        self.0.insert(key.to_owned(), value.to_json());
        self
    }

    /// Adds the member `key` when there is a value (`skip_serializing_if = "Option::is_none"`).
    pub fn with_some(self, key: &str, value: &Option<impl ToJson>) -> Self {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    pub fn build(self) -> Value {
        Value::Object(self.0)
    }
}
