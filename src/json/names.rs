//! Wire names of fieldless enums, defined once per enum.

/// Names each variant of a fieldless enum as the wire and the JS API spell it: `ALL` (every
/// variant), `name()` (an exhaustive `match`, so a new variant cannot go unnamed) and its JSON
/// form (the name, quoted).
macro_rules! wire_names {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in declaration order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The variant as the wire and the JS API spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl $crate::json::ToJson for $ty {
            fn push_json(&self, out: &mut String) {
                $crate::json::push_quoted(out, self.name());
            }
        }
    };
}
pub(crate) use wire_names;
