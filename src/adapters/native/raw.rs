//! The native trace JSON as serde reads it (`RawTrace`, its `Steps`), borrowed from the input,
//! and the attribute a continued trace carries.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Deserialize)]
pub(super) struct RawTrace<'a> {
    #[serde(default)]
    pub(super) run_id: Option<Value>,
    #[serde(default, borrow)]
    pub(super) steps: Option<Steps<'a>>,
    #[serde(default, rename = "final")]
    pub(super) final_answer: Option<Value>,
    /// A JSON Lines record that continues the trace of the line before (same `run_id`): how
    /// `tracelint mcp proxy` writes a session one step per line, flushed as it goes.
    #[serde(default)]
    pub(super) continues: bool,
    /// MCP tools (`tools/list` entries) the run had: the trace's embedded registry.
    #[serde(default)]
    pub(super) tools: Option<Value>,
    /// Facts of an MCP session (`tracelint mcp proxy`'s header): the record holds only the
    /// tool channel.
    #[serde(default)]
    pub(super) mcp: Option<Value>,
}

/// A trace's `steps` member: its items as raw JSON (read in the same pass as the trace), or
/// `None` when it is not a list.
pub(super) struct Steps<'a>(pub(super) Option<Vec<&'a RawValue>>);

impl<'de: 'a, 'a> Deserialize<'de> for Steps<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Items<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Items<'a> {
            type Value = Steps<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of steps")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    items.push(item);
                }
                Ok(Steps(Some(items)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Steps(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
        }
        d.deserialize_any(Items(std::marker::PhantomData))
    }
}

/// A transient attribute: this line's trace continues the one before.
pub(super) const ATTR_CONTINUES: &str = "native.continues";
