//! What a Cline SDK session's metadata file adds to a session: working directory, model,
//! provider, version.

use serde::Deserialize;
use serde_json::Value;

use crate::adapters::common::agent::Session;
use crate::model::ContextKind;


/// The SDK session's metadata fields read.
#[derive(Deserialize, Default)]
pub(super) struct SdkMeta {
    #[serde(default)]
    pub(super) session_id: Option<String>,
    #[serde(default)]
    pub(super) cwd: Option<String>,
    #[serde(default)]
    pub(super) model: Option<String>,
    #[serde(default)]
    pub(super) provider: Option<String>,
    #[serde(default)]
    pub(super) status: Option<String>,
    #[serde(default)]
    pub(super) metadata: Option<Value>,
}

/// Put what an SDK session's metadata says into the session.
pub(super) fn apply_metadata(meta: &Value, session: &mut Session) -> Option<String> {
    let m: SdkMeta = serde_json::from_value(meta.clone()).ok()?;
    session.context(ContextKind::WorkingDirectory, m.cwd.as_deref());
    session.attribute(crate::model::ATTR_MODEL, m.model.as_deref());
    session.attribute("provider", m.provider.as_deref());
    session.attribute("status", m.status.as_deref());
    let version = m
        .metadata
        .as_ref()
        .and_then(|x| x.pointer("/sessionHistoryOrigin/version"))
        .and_then(Value::as_str);
    session.attribute(crate::model::ATTR_AGENT_VERSION, version);
    m.session_id
}
