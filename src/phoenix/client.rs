//! The HTTP calls to a Phoenix server: one agent, no redirects, a timeout per request, replies
//! read up to a byte limit and parsed as JSON (serde_json's nesting limit applies), and every
//! failure said as one line naming the server, the status and what Phoenix answered.

use std::io::Read;

use serde_json::Value;
use ureq::Agent;
use ureq::http;

use super::{Options, PhoenixError, Target};
use crate::sources::http::display_url;

/// Bytes of an error reply quoted.
const ERROR_BODY: u64 = 4 << 10;

/// A client for one server.
pub struct Client {
    agent: Agent,
    auth: Option<String>,
    timeout: std::time::Duration,
}

impl Client {
    /// A client with the options' timeout and API key.
    pub fn new(opts: &Options) -> Client {
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(format!("tracelint/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: Agent::new_with_config(config),
            auth: opts.api_key.as_ref().map(|k| format!("Bearer {k}")),
            timeout: opts.timeout,
        }
    }

    /// GET `url` (a full URL with its query) and parse the JSON reply, read up to `limit` bytes.
    pub fn get(&self, target: &Target, url: &str, limit: u64) -> Result<Value, PhoenixError> {
        self.send(target, "GET", url, None, limit)
    }

    /// POST `body` as JSON to `url` and parse the reply.
    pub fn post(
        &self,
        target: &Target,
        url: &str,
        body: &Value,
        limit: u64,
    ) -> Result<Value, PhoenixError> {
        let bytes = serde_json::to_vec(body).map_err(|e| PhoenixError(e.to_string()))?;
        self.send(target, "POST", url, Some(&bytes), limit)
    }

    fn send(
        &self,
        target: &Target,
        method: &str,
        url: &str,
        body: Option<&[u8]>,
        limit: u64,
    ) -> Result<Value, PhoenixError> {
        let shown = display_url(url);
        let fail = |what: String| PhoenixError(format!("{}: {what}", target.shown));
        let mut req = http::Request::builder()
            .method(method)
            .uri(url)
            .header("accept", "application/json");
        if let Some(auth) = &self.auth {
            req = req.header("authorization", auth.as_str());
        }
        let result = match body {
            Some(b) => {
                let req = req
                    .header("content-type", "application/json")
                    .body(b)
                    .map_err(|e| fail(format!("invalid request to {shown}: {e}")))?;
                let req = self
                    .agent
                    .configure_request(req)
                    .timeout_global(Some(self.timeout))
                    .build();
                self.agent.run(req)
            }
            None => {
                let req = req
                    .body(())
                    .map_err(|e| fail(format!("invalid request to {shown}: {e}")))?;
                let req = self
                    .agent
                    .configure_request(req)
                    .timeout_global(Some(self.timeout))
                    .build();
                self.agent.run(req)
            }
        };
        let resp = result.map_err(|e| match e {
            ureq::Error::Timeout(_) => fail(format!(
                "{method} {shown} took longer than {} s",
                self.timeout.as_secs()
            )),
            other => fail(format!("cannot reach {shown}: {other} (is Phoenix running there?)")),
        })?;
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            let mut bytes = Vec::new();
            let _ = resp
                .into_body()
                .into_with_config()
                .limit(ERROR_BODY)
                .reader()
                .take(ERROR_BODY)
                .read_to_end(&mut bytes);
            let text = String::from_utf8_lossy(&bytes);
            let detail = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("detail").map(|d| d.as_str().map_or(d.to_string(), str::to_owned)))
                .unwrap_or_else(|| text.into_owned());
            let detail: String = detail
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(300)
                .collect();
            let reason = http::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("");
            let mut msg = format!("{status} {reason} from {method} {shown}");
            if !detail.trim().is_empty() {
                msg.push_str(": ");
                msg.push_str(detail.trim());
            }
            match status {
                401 | 403 => msg.push_str(&format!(
                    "; set {} to a Phoenix API key",
                    super::API_KEY_ENV
                )),
                300..=399 => msg.push_str("; tracelint follows no redirect: give the URL it points to"),
                _ => {}
            }
            return Err(fail(msg));
        }
        let bytes = resp
            .into_body()
            .into_with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => fail(format!(
                    "the reply to {method} {shown} is larger than {}",
                    super::size(limit)
                )),
                ureq::Error::Timeout(_) => fail(format!(
                    "{method} {shown} took longer than {} s",
                    self.timeout.as_secs()
                )),
                other => fail(format!("cannot read the reply to {method} {shown}: {other}")),
            })?;
        serde_json::from_slice(&bytes).map_err(|e| {
            fail(format!(
                "the reply to {method} {shown} is not JSON ({e}); is this a Phoenix server?"
            ))
        })
    }
}
