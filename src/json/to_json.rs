//! Values written to JSON by hand, in place of derived `Serialize` impls: each would be one more
//! instance of serde's serializer in the wasm binary. Each `to_json` gives what the type's derive
//! writes (members in declaration order, `None` as `null` or left out as its attributes say).

use super::{Map, Value};

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
        match self {
            Some(v) => v.to_json(),
            None => Value::Null,
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl ToJson for Map {
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
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

/// Numbers and booleans: their `Value::from`.
macro_rules! to_json_by_copy {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_by_copy!(bool, u8, u16, u32, u64, usize, i32, i64, f64);

/// A JSON object built member by member.
#[derive(Default)]
pub struct Object(Map<String, Value>);

impl Object {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the member `key` (inlined: the call site's `to_json` and `put` calls are all there is).
    #[inline]
    pub fn with(self, key: &str, value: &(impl ToJson + ?Sized)) -> Self {
        self.put(key, value.to_json())
    }

    /// Adds the member `key` when there is a value (`skip_serializing_if = "Option::is_none"`).
    pub fn with_some(self, key: &str, value: &Option<impl ToJson>) -> Self {
        match value {
            Some(v) => self.put(key, v.to_json()),
            None => self,
        }
    }

    /// Adds the member `key` with a value already in JSON form (the one insertion every `with`
    /// shares).
    pub fn put(mut self, key: &str, value: Value) -> Self {
        self.0.insert(key.to_owned(), value);
        self
    }

    pub fn build(self) -> Value {
        Value::Object(self.0)
    }
}
