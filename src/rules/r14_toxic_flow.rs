//! R14 toxic_flow: a run in which data from a private source and content from an untrusted
//! source both came in before a call that sends data out — the shape of a prompt injection
//! that exfiltrates data, observed in the run itself rather than inferred from a
//! configuration. A `hard_defect` when a value of a private result provably reached the
//! outbound call's arguments (a distinctive piece of it, found in the private result by the
//! provenance index and in nothing else the agent was given), or the call sends a private file
//! whole (`curl -d @.env`); a `candidate` when only the order holds and the call sends by its
//! nature. Which calls play which role is `analysis::flows`'s.

use serde_json::Value;

use crate::analysis::flows::{Outbound, Roles, distinctive_pieces, masked, private_path, roles};
use crate::analysis::provenance::{Derivation, Provenance};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Role, StepKind};

use super::{Rule, Sink, TraceCx, evidence};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R14,
    kind: FindingType::ToxicFlow,
    summary: "private data and untrusted content both came in before a call that sends data out",
    tiers: &[Tier::HardDefect, Tier::Candidate],
    unit: "outbound calls",
    explanation: include_str!("docs/R14.md"),
};

/// Most private sources kept per trace (the latest), each with its own index.
const MAX_PRIVATE: usize = 16;
/// Most outbound calls whose arguments are searched per trace.
const MAX_PROVEN: usize = 64;

pub(crate) struct ToxicFlow;

/// A source whose result came back.
struct Source {
    call: usize,
    result: usize,
    why: String,
    /// What its result holds, indexed.
    index: Provenance,
}

/// What proves that private data reached the outbound call (sources by position).
enum Proof {
    /// A value of this private result is in the call's arguments.
    Value(usize, String),
    /// The call sends a private file whole (why it is private); the source that read it, when
    /// one did.
    File(Option<usize>, String, String),
}

fn all_roles(cx: &TraceCx<'_>) -> Vec<Option<Roles>> {
    let cfg = &cx.run.settings.flows;
    cx.trace
        .steps
        .iter()
        .map(|s| {
            let c = s.as_call()?;
            let r = roles(c, cx.spec(&c.name), cfg);
            (r != Roles::default()).then_some(r)
        })
        .collect()
}

impl Rule for ToxicFlow {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// Nothing to check in a run with no outbound call, or no private source (a call that
    /// reads private data, or sends a private file).
    fn idle(&self, cx: &TraceCx<'_>) -> bool {
        let cfg = &cx.run.settings.flows;
        let (mut private, mut sink) = (false, false);
        for c in cx.trace.steps.iter().filter_map(|s| s.as_call()) {
            let r = roles(c, cx.spec(&c.name), cfg);
            private |= r.private.is_some()
                || r.sink.as_ref().is_some_and(|s| {
                    s.files.iter().any(|f| private_path(f, cfg).is_some())
                });
            sink |= r.sink.is_some();
            if private && sink {
                return false;
            }
        }
        true
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        let cfg = &cx.run.settings.flows;
        let roles = all_roles(cx);
        let mut private: Vec<Source> = Vec::new();
        let mut untrusted: Option<(usize, usize, String)> = None;
        // Everything else the agent was given: a value found here is not proof.
        let mut elsewhere = Provenance::new();
        let mut searched = 0;
        for step in steps {
            match &step.kind {
                StepKind::Message(m) => {
                    if m.role != Role::Assistant {
                        elsewhere.add_text(&m.content);
                    }
                    continue;
                }
                StepKind::ToolResult(r) => {
                    let call = cx.pairing.call_for(step.index);
                    let role = call.and_then(|c| roles.get(c)?.as_ref());
                    let failed = cx.outcome(step.index).is_some_and(|o| o.failed());
                    match (call, role) {
                        (Some(c), Some(role)) if !failed && role.private.is_some() => {
                            let mut index = Provenance::new();
                            if r.content_recorded {
                                index.add_result(r);
                            }
                            if private.len() == MAX_PRIVATE {
                                private.remove(0);
                            }
                            private.push(Source {
                                call: c,
                                result: step.index,
                                why: role.private.clone().unwrap_or_default(),
                                index,
                            });
                        }
                        _ => elsewhere.add_result(r),
                    }
                    if let (Some(c), Some(role)) = (call, role)
                        && !failed
                        && let Some(why) = &role.untrusted
                    {
                        untrusted = Some((c, step.index, why.clone()));
                    }
                    continue;
                }
                StepKind::ToolCall(_) => {}
            }
            let Some(call) = step.as_call() else { continue };
            let Some(sink) = roles
                .get(step.index)
                .and_then(Option::as_ref)
                .and_then(|r| r.sink.as_ref())
            else {
                continue;
            };
            out.count_tool(Some(&call.name), true);
            let Some((u_call, u_result, u_why)) = &untrusted else {
                continue;
            };
            if private.is_empty() && sink.files.is_empty() {
                continue;
            }
            let proof = if searched < MAX_PROVEN {
                searched += 1;
                prove(call.args.known(), sink, &mut private, &mut elsewhere, cfg)
            } else {
                None
            };
            let tool = Some(call.name.as_str());
            let u_tool = steps
                .get(*u_call)
                .and_then(|s| s.as_call())
                .map_or("?", |c| c.name.as_str());
            let (tier, message, signal, source) = match &proof {
                Some(Proof::Value(i, piece)) => {
                    let src = &private[*i];
                    (
                    Tier::HardDefect,
                    format!(
                        "`{}` sends out a value of the private data read at step {} ({}): {} from that result is in its arguments, after untrusted content came in at step {u_result} (`{u_tool}`)",
                        call.name,
                        src.result,
                        src.why,
                        masked(piece),
                    ),
                    "value",
                    Some((src.call, src.result, src.why.as_str())),
                )
                }
                Some(Proof::File(src, file, why)) => (
                    Tier::HardDefect,
                    format!(
                        "`{}` sends the private file `{file}` ({why}) whole, after untrusted content came in at step {u_result} (`{u_tool}`)",
                        call.name
                    ),
                    "file",
                    src.map(|i| &private[i])
                        .map(|s| (s.call, s.result, s.why.as_str())),
                ),
                None if sink.definite && !private.is_empty() => {
                    let last = &private[private.len() - 1];
                    (
                        Tier::Candidate,
                        format!(
                            "`{}` sends data out ({}) after private data came in at step {} ({}) and untrusted content at step {u_result} (`{u_tool}`); no value of the private result was found in its arguments",
                            call.name, sink.why, last.result, last.why
                        ),
                        "order",
                        Some((last.call, last.result, last.why.as_str())),
                    )
                }
                None => continue,
            };
            let f = out.finding(tier, step, tool, message, "the outbound call");
            f.signal = Some(signal);
            f.help = Some(
                "check whether the untrusted content told the agent to send the data (a prompt injection); if a tool's role is wrong, classify it in `[flows]` of tracelint.toml"
                    .into(),
            );
            f.details = vec![
                format!("sink: {}", sink.why),
                format!("untrusted source: step {u_result}: {u_why}"),
            ];
            if let Some((_, p_result, p_why)) = source {
                f.details
                    .insert(0, format!("private source: step {p_result}: {p_why}"));
                if let Some(s) = steps.get(p_result) {
                    f.evidence.push(evidence(s, "the private data"));
                }
            }
            if let Some(s) = steps.get(*u_result) {
                f.evidence.push(evidence(s, "the untrusted content"));
            }
        }
    }
}

/// A private value, or a private file, in the outbound call's arguments. A value counts when
/// a distinctive piece of the arguments is in a private result and in nothing else the agent
/// was given (the user's words, other tools' results); the latest private result first.
fn prove(
    args: Option<&Value>,
    sink: &Outbound,
    private: &mut [Source],
    elsewhere: &mut Provenance,
    cfg: &crate::analysis::flows::FlowConfig,
) -> Option<Proof> {
    for file in &sink.files {
        if let Some(why) = private_path(file, cfg) {
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
            let read = private
                .iter()
                .rposition(|s| s.why.contains(&format!("{name}`")));
            return Some(Proof::File(read, file.clone(), why));
        }
    }
    let args = args?;
    let pieces = distinctive_pieces(args);
    let mut found = None;
    'search: for piece in &pieces {
        let v = Value::String(piece.clone());
        for (i, src) in private.iter_mut().enumerate().rev() {
            if src.index.check(&v) == Derivation::Derivable {
                if elsewhere.check(&v) != Derivation::Derivable {
                    found = Some((i, piece.clone()));
                    break 'search;
                }
                continue 'search;
            }
        }
    }
    let (i, piece) = found?;
    Some(Proof::Value(i, piece))
}
