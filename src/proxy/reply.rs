//! What the proxy answers in place of the server: a `tools/call` reply replaced by an injected
//! fault, a reply held (a `timeout` fault) until the client cancels or the hold expires, a
//! `tools/list` refused when it differs from the pinned lock.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::scorecard::faults::Fault;

use super::{Held, MAX_LISTED, Method, Shared, inject, key, pin};

/// Handle a server message that may answer a tracked request. `Some(Some(line))`: send this
/// instead; `Some(None)`: hold it; `None`: forward the server's line as it is.
pub(super) fn answer(
    shared: &Arc<Shared>,
    msg: &Value,
    may_replace: bool,
) -> Option<Option<Vec<u8>>> {
    if msg.get("method").is_some() {
        return None;
    }
    let id = msg.get("id")?;
    let p = {
        let mut pending = shared.pending.lock().ok()?;
        let p = pending.remove(&key(id))?;
        shared.update_reading(&pending);
        p
    };
    let ms = p.started.elapsed().as_secs_f64() * 1000.0;
    match p.method {
        Method::Initialize => {
            let r = msg.get("result");
            shared.record(|rec| {
                rec.facts(json!({
                    "protocol_version": r.and_then(|r| r.get("protocolVersion")),
                    "server_info": r.and_then(|r| r.get("serverInfo")),
                    "server_capabilities": r.and_then(|r| r.get("capabilities")),
                }));
            });
            None
        }
        Method::Discover => {
            if let Some(r) = msg.get("result") {
                let info = r
                    .get("_meta")
                    .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
                shared.record(|rec| {
                    rec.facts(json!({
                        "supported_versions": r.get("supportedVersions"),
                        "server_info": info,
                        "server_capabilities": r.get("capabilities"),
                    }));
                });
            }
            None
        }
        Method::ToolsList => {
            let result = msg.get("result");
            if let Some(tools) = result.and_then(|r| r.get("tools")) {
                shared.record(|rec| rec.tools(tools));
            }
            let pin = shared.pin.as_ref()?;
            let tools = result
                .and_then(|r| r.get("tools"))
                .and_then(Value::as_array)?;
            let whole = {
                let mut listed = shared.listed.lock().ok()?;
                // Bounded: a server paging forever is compared on what came so far.
                if listed.len() < MAX_LISTED {
                    listed.extend(tools.iter().cloned());
                }
                let more = result
                    .and_then(|r| r.get("nextCursor"))
                    .and_then(Value::as_str)
                    .is_some_and(|c| !c.is_empty());
                if more {
                    return None;
                }
                std::mem::take(&mut *listed)
            };
            let changes = pin::diff(&pin.tools, &whole);
            if changes.is_empty() {
                return None;
            }
            let refused = !pin.warn_only && may_replace;
            #[allow(clippy::print_stderr)]
            {
                let verdict = if refused { "refused" } else { "warning" };
                eprintln!(
                    "tracelint mcp proxy: {verdict}: the server's tools differ from {} ({} change{}):",
                    pin.path,
                    changes.len(),
                    if changes.len() == 1 { "" } else { "s" }
                );
                for c in &changes {
                    eprintln!("  {c}");
                }
            }
            shared.record(|rec| {
                rec.facts(
                    json!({"pin": {"lock": pin.path, "changes": changes, "refused": refused}}),
                );
            });
            if !refused {
                return None;
            }
            let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": format!("tracelint mcp proxy: the server's tools differ from {}: {}", pin.path, changes.join("; "))}});
            let mut line = serde_json::to_vec(&reply).ok()?;
            line.push(b'\n');
            Some(Some(line))
        }
        Method::ToolsCall(None) => {
            shared.record(|rec| rec.result(id, msg, ms, None));
            None
        }
        Method::ToolsCall(Some(d)) if may_replace => {
            if d.fault == Fault::Timeout {
                if let Ok(mut held) = shared.held.lock() {
                    held.insert(
                        key(id),
                        Held {
                            id: id.clone(),
                            started: p.started,
                            fault_id: d.id.clone(),
                            real: msg.clone(),
                        },
                    );
                }
                let (s, id, hold) = (Arc::clone(shared), id.clone(), shared.hold);
                if shared.out.is_none() {
                    // Over HTTP the request's own thread waits (`http::hold`).
                    return Some(None);
                }
                let _ = std::thread::Builder::new()
                    .name("mcp-proxy-hold".into())
                    .spawn(move || {
                        std::thread::sleep(hold);
                        if let Some(line) = expire(&s, &id) {
                            let _ = s.to_client(&line);
                        }
                    });
                return Some(None);
            }
            let result = inject::injected_result(d.fault, msg)?;
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
            shared.record(|rec| rec.result(id, &reply, ms, Some((&d.id, msg))));
            let mut line = serde_json::to_vec(&reply).ok()?;
            line.push(b'\n');
            Some(Some(line))
        }
        Method::ToolsCall(Some(_)) => {
            // Seen after it was forwarded (in a batch): the client got the real answer.
            shared.record(|rec| rec.result(id, msg, ms, None));
            None
        }
    }
}

/// The client cancelled a request: a held reply is dropped (the client asked for none), and the
/// call is recorded as timed out.
pub(super) fn cancelled(shared: &Arc<Shared>, id: &Value) {
    let Some(h) = shared.held.lock().ok().and_then(|mut h| h.remove(&key(id))) else {
        return;
    };
    let ms = h.started.elapsed().as_secs_f64() * 1000.0;
    let how = format!(
        "timed out: no answer in {:.0} ms, the client cancelled the request",
        ms
    );
    shared.record(|r| r.timed_out(&h.id, &how, ms, &h.fault_id, &h.real));
}

/// A held reply whose client never cancelled: answer with the timeout error an MCP client
/// itself reports (`-32001`), and record it.
pub(super) fn expire(shared: &Arc<Shared>, id: &Value) -> Option<Vec<u8>> {
    let h = shared
        .held
        .lock()
        .ok()
        .and_then(|mut h| h.remove(&key(id)))?;
    let ms = h.started.elapsed().as_secs_f64() * 1000.0;
    let how = format!("timed out: no answer in {ms:.0} ms");
    let reply = json!({"jsonrpc": "2.0", "id": h.id,
        "error": {"code": -32001, "message": format!("Request timed out after {ms:.0} ms")}});
    shared.record(|r| r.timed_out(&h.id, &how, ms, &h.fault_id, &h.real));
    let mut line = serde_json::to_vec(&reply).ok()?;
    line.push(b'\n');
    Some(line)
}
