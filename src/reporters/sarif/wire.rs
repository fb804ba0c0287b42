//! The SARIF 2.1.0 wire format: the subset of the OASIS object model tracelint writes, as
//! private serde structs. Names follow the specification (camelCase on the wire); nothing here
//! knows about findings.

use std::borrow::Cow;

use serde::Serialize;

#[derive(Serialize)]
pub(super) struct Log<'a> {
    #[serde(rename = "$schema")]
    pub(super) schema: &'static str,
    pub(super) version: &'static str,
    pub(super) runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Run<'a> {
    pub(super) tool: Tool<'a>,
    pub(super) invocations: [Invocation; 1],
    pub(super) results: Vec<SarifResult<'a>>,
    pub(super) column_kind: &'static str,
    pub(super) properties: RunProperties<'a>,
}

#[derive(Serialize)]
pub(super) struct Tool<'a> {
    pub(super) driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Driver<'a> {
    pub(super) name: &'static str,
    pub(super) version: &'static str,
    pub(super) semantic_version: &'static str,
    pub(super) information_uri: &'static str,
    pub(super) rules: Vec<Descriptor<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Descriptor<'a> {
    pub(super) id: &'static str,
    pub(super) name: String,
    pub(super) short_description: Text<'a>,
    pub(super) full_description: Text<'a>,
    pub(super) help: Help,
    pub(super) default_configuration: Configuration,
    pub(super) properties: DescriptorProperties,
}

#[derive(Serialize)]
pub(super) struct Text<'a> {
    pub(super) text: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
pub(super) struct Help {
    pub(super) text: &'static str,
    pub(super) markdown: &'static str,
}

#[derive(Serialize)]
pub(super) struct Configuration {
    pub(super) level: &'static str,
}

#[derive(Serialize)]
pub(super) struct DescriptorProperties {
    pub(super) tags: [&'static str; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifResult<'a> {
    pub(super) rule_id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rule_index: Option<usize>,
    pub(super) level: &'static str,
    pub(super) message: Text<'a>,
    pub(super) locations: [Loc<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) related_locations: Vec<Loc<'a>>,
    pub(super) partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) code_flows: Vec<CodeFlow<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) suppressions: Vec<SarifSuppression<'a>>,
    pub(super) properties: ResultProperties<'a>,
}

/// A run's first failure and what followed from it, as one thread of locations.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CodeFlow<'a> {
    pub(super) message: Text<'a>,
    pub(super) thread_flows: [ThreadFlow<'a>; 1],
}

#[derive(Serialize)]
pub(super) struct ThreadFlow<'a> {
    pub(super) locations: Vec<ThreadFlowLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ThreadFlowLocation<'a> {
    pub(super) location: Loc<'a>,
    pub(super) execution_order: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Loc<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<usize>,
    pub(super) physical_location: Physical,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<Text<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Physical {
    pub(super) artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Artifact {
    pub(super) uri: String,
    /// Absent for an absolute `file:` URI (an input outside the root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Region {
    pub(super) start_line: u32,
    pub(super) start_column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) end_column: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Fingerprints {
    pub(super) primary_location_line_hash: String,
}

#[derive(Serialize)]
pub(super) struct SarifSuppression<'a> {
    pub(super) kind: &'static str,
    pub(super) status: &'static str,
    pub(super) justification: Cow<'a, str>,
}

#[derive(Serialize)]
pub(super) struct ResultProperties<'a> {
    pub(super) tier: &'static str,
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    pub(super) run_id: Cow<'a, str>,
    pub(super) pointer: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tool: Option<Cow<'a, str>>,
    pub(super) possible_false_positive: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Invocation {
    pub(super) execution_successful: bool,
    pub(super) exit_code: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Notification {
    pub(super) level: &'static str,
    pub(super) message: Text<'static>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) locations: Vec<Loc<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) associated_rule: Option<RuleRef>,
}

#[derive(Serialize)]
pub(super) struct RuleRef {
    pub(super) id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) index: Option<usize>,
}

#[derive(Serialize)]
pub(super) struct RunProperties<'a> {
    pub(super) fail_on: &'static str,
    pub(super) coverage: Vec<CoverageProperty<'a>>,
    /// Findings left out of `results` to stay within code scanning's limits, by tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) omitted: Option<Omitted>,
}

#[derive(Serialize, Default, Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Omitted {
    pub(super) hard_event: usize,
    pub(super) candidate: usize,
    pub(super) ignored: usize,
}

#[derive(Serialize)]
pub(super) struct CoverageProperty<'a> {
    pub(super) rule: &'static str,
    pub(super) unit: &'a str,
    pub(super) decided: usize,
    pub(super) total: usize,
}
