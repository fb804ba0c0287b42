//! R3 hallucinated_arg: a top-level scalar argument value not derivable from what the agent
//! observed before the call (user and system messages, tool output, and the arguments of its
//! own earlier calls — text it wrote itself, such as a file's content before an edit of it; never
//! its prose). A `candidate`; a `hard_defect` when the field is `x-value-origin: provided`.
//! Skipped: booleans and nulls, enum/const fields, `generated` and `choice` fields, and free-form
//! text (more than one whitespace-separated token) unless `provided`. A path the call creates
//! (declared `created`, or a path of a call whose mode or tool name says it creates, or an
//! output field) is judged by its directory only; the shell session a command runs in is the
//! agent's to name. A value that joins observed values with `,`,
//! `;` or whitespace is observed, and so is one made of observed parts (a URL's host and path, a
//! file named by an observed identifier, a scratch or package file: `Provenance::composite_path`)
//! unless the call's result said it is not there. When nothing declares a tool's schema or origins (and the
//! tools are not recognisably a known agent's built-ins, whose origins then apply), only values
//! that identify something are judged: fields named as ids, keys, paths or URLs, and values
//! that are URLs or paths. The provenance index is planned for the trace's values and grown
//! once as the walk advances (`provenance`), never rebuilt per call.

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, ContextKind, Role, StepKind, ToolSpec, ValueOrigin};

use super::{Rule, Sink, TraceCx};
use crate::analysis::normalize::normalize_text;
use crate::analysis::outcome::Outcome;
use crate::analysis::paths;
use crate::analysis::provenance::{Derivation, Provenance, SOURCE_CAP, WORD_CAP};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R3,
    kind: FindingType::HallucinatedArg,
    summary: "an argument value not derivable from anything the agent observed",
    tiers: &[Tier::Candidate, Tier::HardDefect],
    unit: "tool calls",
    explanation: include_str!("../docs/R3.md"),
};

/// Longest value quoted in a message.
const QUOTE_CHARS: usize = 60;

pub(crate) struct HallucinatedArg;

impl Rule for HallucinatedArg {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        // What the agent observed is not all in the record: no call is judged.
        if let Some(channel) = cx.trace.attribute(crate::model::ATTR_TOOLS_ONLY) {
            return not_judged(cx, out, |calls| {
                format!(
                    "the record holds only the tool channel ({channel}): what the agent was told is not in it, so {calls} call(s) cannot be traced to it and are not judged"
                )
            });
        }
        if let Some(why) = cx.trace.attribute(crate::model::ATTR_PROMPT_UNRECORDED) {
            return not_judged(cx, out, |calls| {
                format!(
                    "the record does not hold what the agent was asked ({why}), so {calls} call(s) cannot be traced to it and are not judged"
                )
            });
        }
        if cx.trace.partial {
            return not_judged(cx, out, |calls| {
                format!(
                    "part of the record could not be read, so what the agent observed is not all in it: {calls} call(s) are not judged"
                )
            });
        }
        // Every value this walk will ask about (and the parts of a composite one), so the index
        // searches for them only.
        // Each call's judged fields, worked out once (by step index) for this walk and the
        // judging below.
        let mut judged_at: Vec<Option<Vec<Judged<'_>>>> = vec![None; cx.trace.steps.len()];
        let mut asked: Vec<Value> = Vec::new();
        for step in &cx.trace.steps {
            let StepKind::ToolCall(call) = &step.kind else {
                continue;
            };
            if let Args::Known(Value::Object(m)) = &call.args {
                let fields: Vec<Judged<'_>> = judged(cx, &call.name, m).collect();
                for &(_, value, _) in &fields {
                    asked.push(value.clone());
                    for part in parts(value).into_iter().flatten() {
                        asked.extend(web_form(&part));
                        asked.push(part);
                    }
                    asked.extend(web_form(value));
                    asked.extend(version_base(value));
                    asked.extend(prefixed(value));
                    for page in same_page(value) {
                        asked.extend(web_form(&page));
                        asked.push(page);
                    }
                    if let Some((folder, name)) = named_page(value) {
                        asked.push(folder);
                        asked.push(name);
                    }
                    asked.extend(registry_package(value));
                    asked.extend(file_url_path(value));
                }
                if let Some(slot) = judged_at.get_mut(step.index) {
                    *slot = Some(fields);
                }
            }
        }
        let home = cx
            .trace
            .context
            .iter()
            .find(|c| c.kind == ContextKind::HomeDirectory)
            .map(|c| normalize_text(&c.value));
        let mut seen = Provenance::planned_at(&asked, home.clone());
        let cwds: Vec<String> = cx
            .trace
            .context
            .iter()
            .filter(|c| c.kind == ContextKind::WorkingDirectory)
            .map(|c| c.value.clone())
            .take(MAX_CWDS)
            .collect();
        let gemini = agent_is(cx, "gemini-cli");
        // Copilot CLI's log records its system prompt (the working directory, the project's
        // instructions) only in newer releases, as a `system.message` event.
        let unrecorded_instructions = gemini
            || agent_is(cx, "claude-code")
            || (cx.trace.attribute(crate::model::ATTR_AGENT)
                == Some(crate::model::AGENT_COPILOT_CLI)
                && !cx.trace.steps.iter().any(|s| {
                    matches!(&s.kind, crate::model::StepKind::Message(m) if m.role == crate::model::Role::System)
                }));
        // What the agent was told about its environment is observed from the start.
        for c in &cx.trace.context {
            seen.add_text(&c.value);
        }
        // And the addresses Claude Code's system prompt gives every session (where to send
        // feedback, where its documentation is), which its records never hold.
        if agent_is(cx, "claude-code") {
            for url in CLAUDE_CODE_PROMPT_URLS {
                seen.add_text(url);
            }
        }
        let mut confirmations = Confirmations::default();
        // Calls made before anything the agent observed was recorded (no user, system or tool
        // text yet): what they were asked to do is not in the trace, so they are not judged.
        let mut observed_any = false;
        let mut unjudged = 0usize;
        // Calls after a tool result whose output the record does not hold (a log that keeps
        // only the verdict, an export that dropped it): what that tool showed the agent is
        // unknown, so they are not judged either.
        let mut unrecorded_output = false;
        let mut after_unrecorded = 0usize;
        for step in &cx.trace.steps {
            let call = match &step.kind {
                StepKind::Message(m) => {
                    if m.role != Role::Assistant {
                        seen.add_text(&m.content);
                        observed_any = true;
                    }
                    continue;
                }
                StepKind::ToolResult(r) => {
                    if r.content_recorded {
                        seen.add_result(r);
                        observed_any = true;
                    } else {
                        unrecorded_output = true;
                    }
                    confirmations.result(cx, step.index, &mut seen);
                    continue;
                }
                StepKind::ToolCall(call) => call,
            };
            if (!observed_any || unrecorded_output)
                && matches!(call.args, Args::Known(Value::Object(_)))
            {
                out.count_tool(Some(&call.name), false);
                if observed_any {
                    after_unrecorded += 1;
                } else {
                    unjudged += 1;
                }
                if let Args::Known(args) = &call.args {
                    seen.add_structured(args);
                }
                continue;
            }
            let Some(args) = out.known_args(step, call) else {
                continue;
            };
            let Value::Object(args) = args else {
                out.count_tool(Some(&call.name), false);
                out.suppress(
                    step,
                    Some(&call.name),
                    "the arguments are not an object: no named fields to check",
                );
                continue;
            };
            out.count_tool(Some(&call.name), true);
            let fields = match judged_at.get_mut(step.index).and_then(Option::take) {
                Some(fields) => fields,
                None => judged(cx, &call.name, args).collect(),
            };
            for (field, value, origin) in fields {
                let provided = origin == Some(ValueOrigin::Provided);
                let mut derivation = if origin == Some(ValueOrigin::Created) {
                    seen.check_created(value)
                } else {
                    seen.check(value)
                };
                if derivation != Derivation::Derivable && confirmations.confirmed(cx, value) {
                    derivation = Derivation::Derivable;
                }
                // A conventional file (`README.md`, `package.json`) in an observed directory,
                // or named alone (in the working directory).
                if derivation != Derivation::Derivable
                    && conventional_file(value)
                    && (value.as_str().is_some_and(|s| !s.contains(['/', '\\']))
                        || seen.check_in_observed_directory(value) == Derivation::Derivable)
                {
                    derivation = Derivation::Derivable;
                }
                // Observed values joined (`0:11258,0:11040`, `a.ts b.ts`), or listed in JSON text.
                if derivation != Derivation::Derivable
                    && parts(value).is_some_and(|ps| {
                        ps.iter().all(|p| {
                            seen.check(p) == Derivation::Derivable
                                || web_form(p)
                                    .is_some_and(|w| seen.check(&w) == Derivation::Derivable)
                        })
                    })
                {
                    derivation = Derivation::Derivable;
                }
                // Made of observed parts (a URL's host and path, a path's scratch directory,
                // package or identifier), unless the tool said it is not there: a composite
                // that does not exist was made up all the same.
                // So is a new version of an observed name (`report-v2` after `report`), an
                // observed target behind a scheme word (`xref:`, `file:`), and in a
                // Gemini CLI session a file near the
                // top of the working directory (Gemini CLI shows the agent the folder
                // structure in its first message, which its logs do not record).
                // The same page under another name counts as the page: a site without its
                // `www.`, a GitHub file's raw URL as the URL of its page.
                // And in a session whose record leaves out the project's instructions (Claude
                // Code's CLAUDE.md, Gemini CLI's GEMINI.md and folder listing), a path inside
                // the working directory that the tool read without fault: the file is there,
                // and what named it to the agent may be what the record leaves out.
                if derivation != Derivation::Derivable
                    && (web_form(value).is_some_and(|w| seen.check(&w) == Derivation::Derivable)
                        || same_page(value).iter().any(|u| {
                            web_form(u).is_some_and(|w| seen.check(&w) == Derivation::Derivable)
                                || seen.composite_path(u)
                        })
                        || version_base(value)
                            .is_some_and(|b| seen.check(&b) == Derivation::Derivable)
                        || prefixed(value).is_some_and(|r| seen.check(&r) == Derivation::Derivable)
                        || seen.composite_path(value)
                        || (gemini && below_cwd(value, &cwds).is_some_and(|d| d <= TOP_LEVELS + 1))
                        || (unrecorded_instructions
                            && value.as_str().is_some_and(|v| v.contains(['/', '\\']))
                            && below_cwd(value, &cwds).is_some()
                            && read_without_fault(cx, step.index)))
                    && !not_found(cx, step.index)
                {
                    derivation = Derivation::Derivable;
                }
                // With no working directory recorded, an absolute path ending in a relative
                // path the agent observed (two components at least) is that path, joined.
                if derivation != Derivation::Derivable
                    && cwds.is_empty()
                    && seen.tail_observed(value)
                {
                    derivation = Derivation::Derivable;
                }
                // Claude Code's memory directory for the project is named in the agent's
                // system prompt whether or not a file of it exists yet.
                if derivation != Derivation::Derivable && in_memory_directory(value, &cwds) {
                    derivation = Derivation::Derivable;
                }
                // A shell's start-up file in a home directory (`~/.zshrc`): every home has
                // its kind, and an agent setting up a shell looks there by convention. The
                // agent's own folder there (`~/.claude/`), and a well-known file of the system
                // (`/etc/ssh/sshd_config`, `/proc/cpuinfo`; a unit created in `/etc/systemd/system/`).
                if derivation != Derivation::Derivable
                    && (home_start_up_file(value)
                        || in_own_agent_folder(cx, value)
                        || system_file(value, origin))
                {
                    derivation = Derivation::Derivable;
                }
                // A `file://` URL of an observed path.
                if derivation != Derivation::Derivable
                    && file_url_path(value).is_some_and(|p| {
                        seen.check(&p) == Derivation::Derivable
                            || (origin != Some(ValueOrigin::Created) && seen.composite_path(&p))
                    })
                {
                    derivation = Derivation::Derivable;
                }
                // A page named after an observed name in a folder of a site the agent observed
                // (`…/overwatch/LuneX_Gaming` after other pages of `…/overwatch/` and the name
                // "LuneX Gaming"), and a package registry's page of an observed package: built
                // from what was seen, found or not.
                if derivation != Derivation::Derivable
                    && (named_page(value).is_some_and(|(folder, name)| {
                        seen.check(&folder) == Derivation::Derivable
                            && seen.check(&name) == Derivation::Derivable
                    }) || registry_package(value)
                        .is_some_and(|p| seen.check(&p) == Derivation::Derivable))
                {
                    derivation = Derivation::Derivable;
                }
                let accepted = (derivation == Derivation::NotDerivable && !provided)
                    .then(|| accepted(cx, step.index, call, field, value, origin, home.as_deref()))
                    .flatten();
                match derivation {
                    Derivation::Derivable => {}
                    Derivation::BeyondCap => out.suppress(
                        step,
                        Some(&call.name),
                        format!(
                            "`{field}` is not derivable from the observed text that was indexed, and could be in text past the index's limits ({} MiB per source; {WORD_CAP} words per trace for values of several words)",
                            SOURCE_CAP >> 20,
                        ),
                    ),
                    // The tool accepted what the value names, and that proves it was there
                    // (`accepted`): not a defect the record can show.
                    Derivation::NotDerivable if accepted.is_some() => {
                        out.suppress(
                            step,
                            Some(&call.name),
                            format!(
                                "`{field}` is not derivable from what the agent observed, but {}",
                                accepted.unwrap_or_default()
                            ),
                        );
                    }
                    Derivation::NotDerivable => {
                        let signal = signal(value, home.as_deref());
                        let tier = if provided {
                            Tier::HardDefect
                        } else {
                            Tier::Candidate
                        };
                        let f = out.finding(
                            tier,
                            step,
                            Some(&call.name),
                            format!(
                                "`{field}` = {} is not derivable from anything the agent observed before the call",
                                quote(value)
                            ),
                            "the call",
                        );
                        f.field = Some(field.clone());
                        f.signal = Some(signal);
                        f.possible_false_positive = !provided;
                        f.help = Some(if provided {
                            format!(
                                "`{field}` is declared `x-value-origin: provided`: ground it in something the agent saw (user text or a tool result)"
                            )
                        } else {
                            format!(
                                "ground `{field}` in something the agent saw, or declare its origin (`x-value-origin: provided` or `generated`) in the schema"
                            )
                        });
                    }
                }
            }
            // What the agent itself wrote in this call (a file's content, a directory it
            // makes) is observed by its later calls.
            if let Args::Known(all) = &call.args {
                seen.add_structured(all);
            }
        }
        if unjudged > 0 {
            out.suppress_trace(format!(
                "{unjudged} call(s) made before anything the agent observed was recorded (no user, system or tool text before them): their arguments are not judged"
            ));
        }
        if after_unrecorded > 0 {
            out.suppress_trace(format!(
                "{after_unrecorded} call(s) made after a tool result whose output the record does not hold (what that tool showed the agent is unknown): their arguments are not judged"
            ));
        }
    }
}

/// Count every call of the trace as not judged, with one suppression for the whole trace (when
/// it has a call) saying why.
fn not_judged(cx: &TraceCx<'_>, out: &mut Sink, why: impl FnOnce(usize) -> String) {
    let mut calls = 0usize;
    for call in cx.trace.steps.iter().filter_map(|s| s.as_call()) {
        out.count_tool(Some(&call.name), false);
        calls += 1;
    }
    if calls > 0 {
        out.suppress_trace(why(calls));
    }
}

/// A successful result confirms the values its call used: the tool accepted them (a file read
/// exists, an order fetched is real), so a later call reusing one is not reported again (the
/// first use was judged). An explicit success (`Outcome::Fine`) makes its call's values
/// observed at once; a result that cannot tell is kept, and asked only when a later value is
/// otherwise not derivable: it confirms when R2a would not suspect it (no error line, no error
/// status in its body, not empty). A failure never confirms.
#[derive(Default)]
struct Confirmations {
    /// A value's JSON text → the unknown-status results of calls that used it.
    pending: std::collections::HashMap<String, Vec<usize>>,
}

impl Confirmations {
    fn result(&mut self, cx: &TraceCx<'_>, result: usize, seen: &mut Provenance) {
        let outcome = cx.outcome(result);
        let fine = matches!(outcome, Some(Outcome::Fine(_)));
        if !fine && !matches!(outcome, Some(Outcome::Unknown { .. })) {
            return;
        }
        let Some(call) = cx
            .pairing
            .call_for(result)
            .and_then(|i| cx.trace.steps[i].as_call())
        else {
            return;
        };
        let Args::Known(Value::Object(args)) = &call.args else {
            return;
        };
        for (_, value, _) in judged(cx, &call.name, args) {
            if fine {
                match value {
                    Value::String(s) => seen.add_text(s),
                    Value::Number(n) => seen.add_text(&n.to_string()),
                    _ => {}
                }
            } else {
                self.pending
                    .entry(value.to_string())
                    .or_default()
                    .push(result);
            }
        }
    }

    fn confirmed(&self, cx: &TraceCx<'_>, value: &Value) -> bool {
        let Some(results) = self.pending.get(&value.to_string()) else {
            return false;
        };
        results.iter().any(|&i| {
            let call = cx
                .pairing
                .call_for(i)
                .and_then(|c| cx.trace.steps[c].as_call());
            cx.trace.steps[i].as_result().is_some_and(|r| {
                r.content_recorded && !crate::analysis::suspicion::suspected(r, call)
            })
        })
    }
}

/// A web URL's host and path (`urls::host_path`), the form its composite is derived in.
fn web_form(value: &Value) -> Option<Value> {
    value
        .as_str()
        .filter(|s| s.contains("://"))
        .and_then(crate::analysis::urls::host_path)
        .map(Value::String)
}

/// What a value names behind a short lower-case scheme word (`xref:modules/a/page.adoc`,
/// `file:src/x.ts`, `npm:left-pad`): a cross-reference, a link or a package spec made of an
/// observed target. Not a URL (`://`), a Windows drive (`c:`) or a time (`10:30`).
fn prefixed(value: &Value) -> Option<Value> {
    let s = value.as_str()?.trim();
    let (scheme, rest) = s.split_once(':')?;
    let short_word =
        (2..=12).contains(&scheme.len()) && scheme.bytes().all(|b| b.is_ascii_lowercase());
    (short_word && rest.chars().count() >= 3 && !rest.starts_with("//"))
        .then(|| Value::String(rest.to_owned()))
}

/// The name a versioned value is a new version of (`report` of `report-v2`, `a_b` of
/// `a_b_v10`): a `-`, `_` or `.` and `v` with 1 to 3 digits at its end, after at least 4
/// characters.
fn version_base(value: &Value) -> Option<Value> {
    let s = value.as_str()?.trim();
    let (base, digits) = s.rsplit_once(['v', 'V'])?;
    let base = base.strip_suffix(['-', '_', '.'])?;
    let versioned = (1..=3).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && base.chars().count() >= 4;
    versioned.then(|| Value::String(base.to_owned()))
}

/// Are the trace's built-in tools those of this agent (`gemini-cli`, `claude-code`), in force
/// or recognised?
fn agent_is(cx: &TraceCx<'_>, agent: &str) -> bool {
    let prefix = format!("builtin:{agent}");
    cx.registry
        .sources
        .iter()
        .chain(cx.recognised.iter().flat_map(|r| r.sources.iter()))
        .any(|s| s.starts_with(&prefix))
}

/// Is the value a path in Claude Code's memory directory of a working directory
/// (`~/.claude/projects/<the directory, every other character than a letter or digit a
/// `-`>/memory/…`)?
fn in_memory_directory(value: &Value, cwds: &[String]) -> bool {
    let Some(s) = value.as_str() else {
        return false;
    };
    let path = s.replace('\\', "/").to_lowercase();
    cwds.iter().any(|cwd| {
        let project: String = cwd
            .trim_end_matches(['/', '\\'])
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        path.contains(&format!("/.claude/projects/{project}/memory/"))
    })
}

/// Levels of the folder structure Gemini CLI shows at the start of a session that are taken
/// as seen: a file at most this many directories below the working directory.
const TOP_LEVELS: usize = 3;

/// How many components below a working directory a file name or path is (relative, or under a
/// recorded working directory; a Windows drive in either case), when it does not climb out.
fn below_cwd(value: &Value, cwds: &[String]) -> Option<usize> {
    let s = value.as_str()?;
    let path = s.trim().replace('\\', "/");
    if path.is_empty() || path.contains(char::is_whitespace) || path.contains("://") {
        return None;
    }
    let drive = path.get(1..2) == Some(":");
    let rest = if path.starts_with('/') || path.starts_with('~') || drive {
        cwds.iter().find_map(|cwd| {
            let cwd = cwd.replace('\\', "/");
            let cwd = cwd.trim_end_matches('/');
            let rest = match path.get(..cwd.len()) {
                Some(head) if head == cwd || (drive && head.eq_ignore_ascii_case(cwd)) => {
                    &path[cwd.len()..]
                }
                _ => return None,
            };
            rest.strip_prefix('/').map(str::to_owned)
        })?
    } else {
        path
    };
    let comps: Vec<&str> = rest.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    (!comps.is_empty() && !comps.contains(&"..")).then_some(comps.len())
}

/// Did the call's result come back without fault: an explicit success, or a result of unknown
/// status with content that R2a would not suspect of an error?
fn read_without_fault(cx: &TraceCx<'_>, call: usize) -> bool {
    let Some(i) = cx.pairing.result_for(call) else {
        return false;
    };
    match cx.outcome(i) {
        Some(Outcome::Fine(_)) => true,
        Some(Outcome::Unknown { .. }) => cx.trace.steps[i].as_result().is_some_and(|r| {
            r.content_recorded
                && !crate::analysis::suspicion::suspected(r, cx.trace.steps[call].as_call())
        }),
        _ => false,
    }
}

/// Is the value an address of a place: a web URL, or a filesystem path?
fn names_a_place(value: &Value, home: Option<&str>) -> bool {
    value.as_str().is_some_and(|s| {
        let norm = normalize_text(s);
        norm.contains("://") || paths::path_form(&norm, home).is_some()
    })
}

/// Did the tool accept what a value names, so that it was there whatever told the agent of
/// it? Only for a call answered without fault (`read_without_fault`) that does not say the
/// thing is not there, and never for a value the call creates. Then, with why (the message's
/// end):
/// - the address of a place (a path, a web URL; a bare file name in a path field) that a call
///   reached — a lookup, or any call not declared side-effecting: it exists. Not an id: a
///   made-up order number that resolves may be someone else's order;
/// - the text an edit replaces (`old_string`): the edit found it in the file;
/// - a handle of the agent's own session (a shell, a terminal, a background `bash_id`) the
///   runtime answered for: the runtime gave it out, in notices a record may not keep.
fn accepted(
    cx: &TraceCx<'_>,
    index: usize,
    call: &crate::model::ToolCall,
    field: &str,
    value: &Value,
    origin: Option<ValueOrigin>,
    home: Option<&str>,
) -> Option<String> {
    if origin == Some(ValueOrigin::Created) || !read_without_fault(cx, index) || not_found(cx, index)
    {
        return None;
    }
    let lookup = crate::analysis::effects::looks_up(call);
    let side_effecting = cx
        .origin_spec(&call.name)
        .is_some_and(|s| s.metadata.is_side_effecting());
    let place = names_a_place(value, home)
        || (crate::analysis::effects::path_field(field) && bare_file_name(value));
    if place && (lookup || !side_effecting) {
        return Some(if lookup {
            "the call only looked it up and the tool answered without fault: the value names something that exists".to_owned()
        } else {
            "the call reached it and the tool answered without fault: the place it names exists".to_owned()
        });
    }
    if crate::analysis::effects::old_text_field(field) && crate::analysis::effects::looks_like_a_write(call) {
        return Some("the edit found it in the file and the tool answered without fault: the text was there".to_owned());
    }
    if crate::analysis::effects::handle_field(field)
        || (OWN_TASK_TOOLS.contains(&call.name.as_str()) && matches!(field, "taskId" | "task_id"))
    {
        return Some("the runtime answered for it without fault: a handle of this session that the runtime gave out, in notices a record may not keep".to_owned());
    }
    None
}

/// Addresses Claude Code's system prompt names in every session.
const CLAUDE_CODE_PROMPT_URLS: &[&str] = &[
    "https://github.com/anthropics/claude-code/issues",
    "https://docs.anthropic.com/en/docs/claude-code/",
    "https://docs.claude.com/en/docs/claude-code/",
    "https://code.claude.com/docs/en/",
    "https://docs.claude.com/en/docs/claude-code/claude_code_docs_map.md",
    "https://code.claude.com/docs/en/claude_code_docs_map.md",
];

/// Shell start-up files every home directory may hold.
const HOME_START_UP_FILES: &[&str] = &[
    ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".bashrc", ".bash_profile", ".bash_login",
    ".profile", ".config/fish/config.fish", ".config/starship.toml",
];

/// What a path names inside a home directory (`~`, `/root`, `/home/NAME`, `/Users/NAME`,
/// `C:/Users/NAME`, `\\` read as `/`): the rest after the home's `/`.
fn in_home(value: &Value) -> Option<String> {
    let path = value.as_str()?.trim().replace('\\', "/");
    let path = match path.get(1..2) {
        Some(":") => path[2..].to_owned(),
        _ => path,
    };
    let rest = if let Some(rest) = path.strip_prefix("~/") {
        rest
    } else if let Some(rest) = path.strip_prefix("/root/") {
        rest
    } else {
        let rest = ["/home/", "/Users/", "/users/"]
            .iter()
            .find_map(|h| path.strip_prefix(h))?;
        let (name, rest) = rest.split_once('/')?;
        if name.is_empty() {
            return None;
        }
        rest
    };
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// Is the value a shell start-up file (`HOME_START_UP_FILES`) right in a home directory?
fn home_start_up_file(value: &Value) -> bool {
    in_home(value).is_some_and(|rest| HOME_START_UP_FILES.contains(&rest.as_str()))
}

/// The folder in the home directory where each coding agent keeps its own settings, memory,
/// skills and sessions (`~/.claude/` for Claude Code).
const AGENT_FOLDERS: &[(&str, &str)] = &[
    ("claude-code", ".claude/"),
    ("codex", ".codex/"),
    ("gemini-cli", ".gemini/"),
];

/// Is the value a path in the session's own agent's folder of the home directory
/// (`~/.claude/settings.json` in a Claude Code session)? Its system prompt, its settings and
/// the user's instructions name what is there, and a record holds none of them.
fn in_own_agent_folder(cx: &TraceCx<'_>, value: &Value) -> bool {
    in_home(value).is_some_and(|rest| {
        AGENT_FOLDERS
            .iter()
            .any(|(agent, folder)| rest.starts_with(folder) && agent_is(cx, agent))
    })
}

/// The path a `file://` URL names (`file:///Users/a/x.html` → `/Users/a/x.html`).
fn file_url_path(value: &Value) -> Option<Value> {
    let s = value.as_str()?.trim();
    let rest = s
        .strip_prefix("file://")
        .or_else(|| s.strip_prefix("FILE://"))?;
    let path = crate::analysis::urls::decoded(rest.split(['?', '#']).next()?);
    // `file:///C:/x` names `C:/x`.
    let path = match path.get(2..3) {
        Some(":") if path.starts_with('/') => path[1..].to_owned(),
        _ => path,
    };
    (path.len() >= 2).then_some(Value::String(path))
}

/// Claude Code's own task list's tools, whose task ids the runtime gives out.
const OWN_TASK_TOOLS: &[&str] = &["TaskUpdate", "TaskGet", "TaskOutput", "TaskStop"];

/// The folder and the name of a web page named after something
/// (`https://liquipedia.net/overwatch/LuneX_Gaming` → `liquipedia.net/overwatch/` and
/// `LuneX Gaming`): the host and the path up to the last segment (one segment at least),
/// with `/` at its end, and that segment's words (two or more, split at `-`, `_` and spaces,
/// `%xx` read), each letters and digits only.
fn named_page(value: &Value) -> Option<(Value, Value)> {
    let s = value.as_str()?.trim();
    let (scheme, rest) = s.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let rest = rest.split(['?', '#']).next()?.trim_end_matches('/');
    let (folder, last) = rest.rsplit_once('/')?;
    if !folder.contains('/') || folder.contains(char::is_whitespace) {
        return None;
    }
    let last = crate::analysis::urls::decoded(last);
    let words: Vec<&str> = last
        .split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    let named = (2..=12).contains(&words.len())
        && words.iter().all(|w| w.chars().all(char::is_alphanumeric))
        && words.iter().any(|w| w.chars().any(char::is_alphabetic));
    named.then(|| {
        (
            Value::String(format!("{folder}/")),
            Value::String(words.join(" ")),
        )
    })
}

/// Package registries' pages of one package: the host and the path before the package's name.
const REGISTRY_PAGES: &[&str] = &[
    "npmjs.com/package/",
    "www.npmjs.com/package/",
    "pypi.org/project/",
    "crates.io/crates/",
    "docs.rs/",
    "lib.rs/crates/",
    "pkg.go.dev/",
    "rubygems.org/gems/",
    "www.nuget.org/packages/",
    "packagist.org/packages/",
    "hex.pm/packages/",
    "pub.dev/packages/",
];

/// The package a registry's page is of (`https://www.npmjs.com/package/@scope/name` →
/// `@scope/name`, `https://pypi.org/project/requests/` → `requests`).
fn registry_package(value: &Value) -> Option<Value> {
    let s = value.as_str()?.trim();
    let (scheme, rest) = s.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let rest = rest.split(['?', '#']).next()?.trim_end_matches('/');
    REGISTRY_PAGES.iter().find_map(|page| {
        let name = rest.strip_prefix(page)?;
        // `@scope/name` is one package; otherwise the first segment (a version may follow).
        let name = if name.starts_with('@') || page.starts_with("pkg.go.dev") {
            name
        } else {
            name.split('/').next()?
        };
        (name.len() >= 2 && !name.contains(char::is_whitespace))
            .then(|| Value::String(name.to_owned()))
    })
}

/// A file name alone (`CONSTITUTION.md`, `render.yaml`): one token with a dot before a short
/// alphanumeric extension, no separator, no scheme.
fn bare_file_name(value: &Value) -> bool {
    value.as_str().is_some_and(|s| {
        let s = s.trim();
        !s.is_empty()
            && s.len() <= 255
            && !s.contains(char::is_whitespace)
            && !s.contains(['/', '\\', ':'])
            && s.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=10).contains(&ext.len())
                    && ext.bytes().all(|b| b.is_ascii_alphanumeric())
            })
    })
}

/// Other URLs of the page a URL names: without the host's `www.`; a GitHub file's page
/// (`github.com/O/R/blob/B/P`) for its raw URL (`raw.githubusercontent.com/O/R/B/P`); and for
/// a GitHub file or folder at a ref (`…/blob/B/P`, `…/tree/B/P`, raw), the repository's URL
/// with the path alone (`github.com/O/R/P`), so that an observed repository and an observed
/// path make it whatever the ref.
fn same_page(value: &Value) -> Vec<Value> {
    let Some(url) = value.as_str().map(str::trim) else {
        return Vec::new();
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(bare) = rest.strip_prefix("www.") {
        out.push(Value::String(format!("{scheme}://{bare}")));
    }
    if let Some(path) = rest.strip_prefix("raw.githubusercontent.com/") {
        let mut parts = path.splitn(4, '/');
        if let (Some(owner), Some(repo), Some(branch), Some(file)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
            && !file.is_empty()
        {
            out.push(Value::String(format!(
                "{scheme}://github.com/{owner}/{repo}/blob/{branch}/{file}"
            )));
            out.push(Value::String(format!(
                "{scheme}://github.com/{owner}/{repo}/{file}"
            )));
        }
    }
    if let Some(path) = rest.strip_prefix("github.com/") {
        let mut parts = path.splitn(5, '/');
        if let (Some(owner), Some(repo), Some("blob" | "tree"), Some(_), Some(file)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) && !file.is_empty()
        {
            out.push(Value::String(format!(
                "{scheme}://github.com/{owner}/{repo}/{file}"
            )));
        }
    }
    out
}

/// Most working directories a value is compared with (a session that changes directory keeps
/// every one: the cost per value stays bounded).
const MAX_CWDS: usize = 16;

/// Bytes of a result's text read for a "not found" answer.
const NOT_FOUND_HEAD: usize = 400;

/// What tools answer when what a call names does not exist, lower case. Not "cannot find": a
/// web fetch's summary says that of the page's content ("I cannot find specific tables").
const NOT_FOUND_PHRASES: &[&str] = &[
    "not found",
    "no such file",
    "enoent",
    "does not exist",
    "doesn't exist",
    "no such host",
    "could not resolve host",
    "name or service not known",
];

/// Did the call's result say that what it named is not there (a file not found, `ENOENT`, an
/// HTTP 404, an unknown host)? Read from the start of its error and text: the answer is the
/// whole message, not a phrase deep in a file's content.
fn not_found(cx: &TraceCx<'_>, call: usize) -> bool {
    let Some(r) = cx
        .pairing
        .result_for(call)
        .and_then(|i| cx.trace.steps[i].as_result())
    else {
        return false;
    };
    if r.http_status == Some(404) {
        return true;
    }
    let mut heads: Vec<&str> = r.error.as_deref().into_iter().collect();
    match &r.content {
        Value::String(s) => heads.push(s),
        Value::Array(items) => heads.extend(items.iter().take(4).filter_map(|v| match v {
            Value::String(s) => Some(s.as_str()),
            Value::Object(o) => o.get("text").and_then(Value::as_str),
            _ => None,
        })),
        Value::Object(o) => heads.extend(
            ["error", "message", "output", "text", "content", "stderr"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str)),
        ),
        _ => {}
    }
    heads.into_iter().any(says_not_found)
}

/// Does the head of this text say "not found" (a phrase, or `404` as a word)?
fn says_not_found(text: &str) -> bool {
    let mut end = text.len().min(NOT_FOUND_HEAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = text[..end].to_ascii_lowercase();
    NOT_FOUND_PHRASES.iter().any(|p| head.contains(p))
        || head.match_indices("404").any(|(i, _)| {
            let b = head.as_bytes();
            let word = |j: usize| b.get(j).is_some_and(u8::is_ascii_alphanumeric);
            !((i > 0 && word(i - 1)) || word(i + 3))
        })
}

/// Which check a value failed: as a path (it looks like one), as a number, or as text.
fn signal(value: &Value, home: Option<&str>) -> &'static str {
    match value {
        Value::Number(_) => "not_derivable_as_number",
        Value::String(s) => {
            let norm = normalize_text(s);
            if paths::path_form(&norm, home).is_some() {
                "not_derivable_as_path"
            } else if crate::analysis::normalize::canonical_number_str(s).is_some() {
                "not_derivable_as_number"
            } else {
                "not_derivable_as_text"
            }
        }
        _ => "not_derivable_as_text",
    }
}

/// A field R3 judges: its name, its value and its origin (`judged`).
type Judged<'a> = (&'a String, &'a Value, Option<ValueOrigin>);

/// The fields of a call's arguments R3 judges (`skipped` aside), with their origin: declared
/// (the tools file, or the built-in table of the agent the tools are recognised as), or read as
/// `created` for a path of a call that says it creates (by its mode or its tool's name) and for
/// an output field's path. When nothing declares the tool's schema or origins, only values
/// that identify something are judged (`identifies`).
fn judged<'a>(
    cx: &TraceCx<'a>,
    tool: &str,
    args: &'a serde_json::Map<String, Value>,
) -> impl Iterator<Item = Judged<'a>> {
    let spec = cx.origin_spec(tool);
    // A schema `init` or `infer` guessed from calls says nothing of where values come from.
    let bare = spec.is_none_or(|s| {
        s.value_origins.is_empty()
            && s.schema.as_ref().is_none_or(|schema| {
                schema.get(crate::analysis::schema_errors::INFERRED) == Some(&Value::Bool(true))
            })
    });
    let creating =
        crate::analysis::effects::creates(args) || crate::analysis::effects::creates_by_name(tool);
    let runs_command = crate::analysis::effects::runs_command(args);
    // What a search is given, besides where to look, is a query the agent writes.
    let search = crate::analysis::effects::searches(tool, args);
    args.iter().filter_map(move |(field, value)| {
        // A path, or a bare name in a field that holds one (`write {"filePath": "hello.txt"}`).
        let pathlike = value.as_str().is_some_and(|v| v.contains(['/', '\\']))
            || (value.is_string() && crate::analysis::effects::path_field(field));
        let origin = spec
            .and_then(|s| s.value_origins.get(field))
            .copied()
            .or_else(|| {
                ((creating || crate::analysis::effects::output_field(field)) && pathlike)
                    .then_some(ValueOrigin::Created)
            })
            .or_else(|| {
                // The shell session a command runs in is named by the agent.
                (runs_command && crate::analysis::effects::session_field(field))
                    .then_some(ValueOrigin::Generated)
            });
        if skipped(spec, field, value, origin) {
            return None;
        }
        if search && origin != Some(ValueOrigin::Provided) && !names_a_place(value, None) {
            return None;
        }
        if bare && origin != Some(ValueOrigin::Provided) && !identifies(field, value) {
            return None;
        }
        Some((field, value, origin))
    })
}

/// Without a schema: does the value identify something — a field named as an id, a key, a
/// path or a URL, or a value that is a URL or a path? Free text, patterns, modes and new content
/// are not judged.
fn identifies(field: &str, value: &Value) -> bool {
    if crate::analysis::parameters::names_a_thing(field) {
        return true;
    }
    if crate::analysis::parameters::names_text(field) {
        return false;
    }
    value.as_str().is_some_and(|s| {
        let norm = normalize_text(s);
        norm.contains("://") || paths::path_form(&norm, None).is_some() || is_email(&norm)
    })
}

/// An e-mail address: one token, a local part, `@`, a dotted domain.
fn is_email(norm: &str) -> bool {
    !norm.contains(char::is_whitespace)
        && norm
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
}

/// Does a property offer its values (an `enum` or a `const`, or `anyOf`/`oneOf` branches that
/// each do: Claude Code's `TaskUpdate.status` is one enum and one `const`)?
fn offers_constants(prop: &Value) -> bool {
    if prop.get("enum").is_some() || prop.get("const").is_some() {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        prop.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                !branches.is_empty()
                    && branches
                        .iter()
                        .all(|b| b.get("enum").is_some() || b.get("const").is_some())
            })
    })
}

/// File names every project of its kind has at its root or in its packages: reading one in a
/// directory the agent observed is looking, not making a path up.
const CONVENTIONAL_FILES: &[&str] = &[
    "readme.md", "readme", "readme.rst", "readme.txt", "license", "license.md", "changelog.md",
    "contributing.md", "claude.md", "agents.md", "gemini.md", ".gitignore", ".gitattributes",
    ".editorconfig", ".envrc", ".env", ".env.example", ".nvmrc", ".tool-versions",
    "package.json", "tsconfig.json", "cargo.toml", "pyproject.toml", "setup.py", "setup.cfg",
    "requirements.txt", "go.mod", "gemfile", "makefile", "dockerfile", "docker-compose.yml",
    "mix.exs", "pom.xml", "build.gradle", "go.sum", "cargo.lock", "package-lock.json",
    "yarn.lock", "pnpm-lock.yaml", "tsconfig.base.json", "vite.config.ts", "vite.config.js",
    "eslint.config.js", "eslint.config.mjs", ".eslintrc.json", ".prettierrc", "biome.json",
    ".golangci.yml", ".golangci.yaml", "ruff.toml", "tox.ini", "pytest.ini",
    ".pre-commit-config.yaml", "justfile", "deno.json", "index.html",
    // Configuration files of common web frameworks and hosts, at a project's root.
    "next.config.js", "next.config.mjs", "next.config.ts", "postcss.config.js",
    "postcss.config.mjs", "postcss.config.cjs", "tailwind.config.js", "tailwind.config.ts",
    "tailwind.config.cjs", "vite.config.mjs", "vitest.config.ts", "vitest.config.js",
    "jest.config.js", "jest.config.ts", "webpack.config.js", "babel.config.js", ".babelrc",
    "nuxt.config.ts", "svelte.config.js", "astro.config.mjs", "angular.json",
    "playwright.config.ts", "turbo.json", "nx.json", "vercel.json", "netlify.toml",
    "render.yaml", "fly.toml", "procfile", "components.json", "drizzle.config.ts",
    "manage.py",
];

/// A path whose file name is a conventional one (`CONVENTIONAL_FILES`), or such a name alone.
fn conventional_file(value: &Value) -> bool {
    value.as_str().is_some_and(|s| {
        let name = s.rsplit(['/', '\\']).next().unwrap_or(s);
        CONVENTIONAL_FILES.contains(&name.to_ascii_lowercase().as_str())
    })
}

/// Most parts a composite value is split into.
const MAX_PARTS: usize = 64;

/// Longest string read as JSON text for its parts.
const MAX_JSON_PART_BYTES: usize = 64 * 1024;

/// The parts of a string joining several values with `,`, `;` or whitespace (`0:11258,0:11040`),
/// when it has 2 to `MAX_PARTS` of them; or of a string that is JSON text (`"[\"https://…\"]"`,
/// a list some tools take encoded in a string), its 1 to `MAX_PARTS` strings and numbers.
fn parts(value: &Value) -> Option<Vec<Value>> {
    let s = value.as_str()?;
    if let Some(leaves) = json_leaves(s) {
        return Some(leaves);
    }
    if !s.contains([',', ';']) && !s.trim().contains(char::is_whitespace) {
        return None;
    }
    let ps: Vec<Value> = s
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .take(MAX_PARTS + 1)
        .map(|p| Value::String(p.to_owned()))
        .collect();
    (2..=MAX_PARTS).contains(&ps.len()).then_some(ps)
}

/// The strings and numbers of a string that is a JSON array or object, when it has 1 to
/// `MAX_PARTS` of them.
fn json_leaves(s: &str) -> Option<Vec<Value>> {
    let t = s.trim();
    if !(t.starts_with('[') || t.starts_with('{')) || t.len() > MAX_JSON_PART_BYTES {
        return None;
    }
    let doc: Value = serde_json::from_str(t).ok()?;
    let mut out = Vec::new();
    let mut stack = vec![&doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => stack.extend(a.iter().rev()),
            Value::Object(m) => stack.extend(m.values().rev()),
            Value::String(x) if !x.trim().is_empty() => out.push(v.clone()),
            Value::Number(_) => out.push(v.clone()),
            _ => {}
        }
        if out.len() > MAX_PARTS {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A value someone redacted before publishing the record (`/Users/[USER]/.zshrc`,
/// `REDACTED.md`): what the agent really wrote is not in the file, so it cannot be judged.
fn redacted(value: &Value) -> bool {
    let Some(s) = value.as_str() else {
        return false;
    };
    if s.contains("REDACTED") || s.contains("<redacted") || s.contains("[redacted") {
        return true;
    }
    // A bracketed upper-case placeholder: `[USER]`, `[EMAIL]`, `[HOME_DIR]`.
    s.match_indices('[').any(|(i, _)| {
        let rest = &s[i + 1..];
        let len = rest
            .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .unwrap_or(rest.len());
        len >= 3 && rest[len..].starts_with(']')
    })
}

/// Values R3 does not judge: booleans and nulls (and containers: only top-level scalars are
/// checked), enum/const fields, `generated` fields, parameters, what a call does (`command`,
/// `action`, `mode`, `cmd`…), and free-form text, each unless `provided`.
fn skipped(
    spec: Option<&ToolSpec>,
    field: &str,
    value: &Value,
    origin: Option<ValueOrigin>,
) -> bool {
    if !matches!(value, Value::String(_) | Value::Number(_))
        || redacted(value)
        || glob(value)
        || empty_json_text(value)
    {
        return true;
    }
    if matches!(origin, Some(ValueOrigin::Generated | ValueOrigin::Choice)) {
        return true;
    }
    let prop = spec
        .and_then(|s| s.schema.as_ref())
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(field));
    if prop.is_some_and(offers_constants) {
        return true;
    }
    if origin != Some(ValueOrigin::Provided)
        && crate::analysis::parameters::is_parameter(field, prop, value)
    {
        return true;
    }
    // What to do, not what to do it to: a mode (`str_replace_editor`'s `command: view`) is a
    // choice the tool offers, a one-word shell command (`ls`, `./run.sh`) text the agent writes.
    if origin != Some(ValueOrigin::Provided)
        && (crate::analysis::effects::MODE_KEYS.contains(&field)
            || crate::analysis::effects::SHELL_KEYS.contains(&field))
    {
        return true;
    }
    origin != Some(ValueOrigin::Provided) && value.as_str().is_some_and(free_text)
}

/// Free-form text: more than one whitespace-separated token, or a run of words in a script
/// written without spaces (`查看生成的文档`: four or more Chinese or Japanese characters).
fn free_text(s: &str) -> bool {
    s.split_whitespace().nth(1).is_some()
        || s.chars()
            .filter(|&c| {
                matches!(c as u32,
                    0x3040..=0x30FF // kana
                    | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF) // ideographs
            })
            .nth(3)
            .is_some()
}

/// An empty list or object written as JSON text (`"[]"`, `"{ }"`): nothing to judge.
fn empty_json_text(value: &Value) -> bool {
    value.as_str().is_some_and(|s| {
        let mut t = s.chars().filter(|c| !c.is_whitespace());
        matches!(
            (t.next(), t.next(), t.next()),
            (Some('['), Some(']'), None) | (Some('{'), Some('}'), None)
        )
    })
}

/// Files every system of their kind has, at fixed places (`/etc/hosts`, `/etc/ssh/sshd_config`).
const SYSTEM_FILES: &[&str] = &[
    "/etc/hosts", "/etc/hostname", "/etc/os-release", "/etc/lsb-release", "/etc/debian_version",
    "/etc/redhat-release", "/etc/issue", "/etc/passwd", "/etc/group", "/etc/shadow",
    "/etc/sudoers", "/etc/fstab", "/etc/resolv.conf", "/etc/environment", "/etc/crontab",
    "/etc/profile", "/etc/bash.bashrc", "/etc/zshrc", "/etc/timezone", "/etc/localtime",
    "/etc/ssh/sshd_config", "/etc/ssh/ssh_config", "/etc/nginx/nginx.conf",
    "/etc/apt/sources.list", "/etc/docker/daemon.json", "/etc/systemd/journald.conf",
];

/// Folders whose files the system makes (`/proc/cpuinfo`), and folders where a service, a
/// program or a site's configuration is created by convention (`/etc/systemd/system/x.service`).
const SYSTEM_FOLDERS: &[&str] = &["/proc/", "/sys/"];
const SYSTEM_CREATE_FOLDERS: &[&str] = &[
    "/etc/systemd/system/", "/usr/local/bin/", "/etc/nginx/sites-available/",
    "/etc/nginx/conf.d/", "/etc/cron.d/", "/etc/logrotate.d/", "/etc/sudoers.d/",
];

/// Is the value a well-known system file (`SYSTEM_FILES`), a file of a folder the system makes
/// (`SYSTEM_FOLDERS`), or — for a path the call creates — a file right in a folder where such
/// files are created by convention (`SYSTEM_CREATE_FOLDERS`)?
fn system_file(value: &Value, origin: Option<ValueOrigin>) -> bool {
    value.as_str().is_some_and(|s| {
        let s = s.trim();
        let under = |folders: &[&str]| {
            folders.iter().any(|f| {
                s.strip_prefix(f)
                    .is_some_and(|rest| !rest.is_empty() && !rest.contains(['/', '\\']))
            })
        };
        !s.contains("..")
            && (SYSTEM_FILES.contains(&s)
                || SYSTEM_FOLDERS.iter().any(|f| s.starts_with(f) && s.len() > f.len())
                || (origin == Some(ValueOrigin::Created) && under(SYSTEM_CREATE_FOLDERS)))
    })
}

/// A glob pattern (`*.md`, `src/**/*.ts`, `*route*.py`), not a URL: what to match, written by
/// the agent, not a name of one thing.
fn glob(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| s.contains('*') && !s.contains("://"))
}

fn quote(v: &Value) -> String {
    let s = v.to_string();
    let mut q: String = s.chars().take(QUOTE_CHARS).collect();
    if s.chars().count() > QUOTE_CHARS {
        q.push('…');
    }
    format!("`{}`", q.replace('`', "'"))
}

#[cfg(test)]
mod tests;
