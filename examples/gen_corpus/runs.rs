//! The runs themselves, independent of any format: a seeded generator of agent runs (messages,
//! tool calls with their results) over eight realistic tools, and the tools file that declares
//! them. Owns the mix of defects; never writes files.

use serde_json::{Map, Value, json};

use crate::rng::{Rng, WORDS};

/// One tool call and what came back.
#[derive(Clone)]
pub(crate) struct Call {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) args: Value,
    /// The result: a JSON object, or the error text when `error` is set.
    pub(crate) result: Value,
    pub(crate) error: bool,
}

/// One step of a run.
pub(crate) enum Event {
    User(String),
    Assistant(String),
    Call(Call),
}

/// One agent run (a session, a trace, a task's trajectory).
pub(crate) struct Run {
    pub(crate) index: usize,
    pub(crate) id: String,
    pub(crate) events: Vec<Event>,
    pub(crate) final_answer: String,
}

impl Run {
    pub(crate) fn calls(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Call(_)))
            .count()
    }
    /// Steps as the native format counts them: a message, a call or a result each.
    pub(crate) fn steps(&self) -> usize {
        self.events
            .iter()
            .map(|e| if matches!(e, Event::Call(_)) { 2 } else { 1 })
            .sum()
    }
}

const CITIES: &[&str] = &["Paris", "Oslo", "Lima", "Kyoto", "Accra", "Denver", "Porto"];
const COUNTRIES: &[&str] = &["FR", "NO", "PE", "JP", "GH", "US", "PT"];
const FILES: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "src/orders/refund.py",
    "tests/test_orders.py",
    "README.md",
    "config/settings.toml",
];
const UNKNOWN_TOOLS: &[&str] = &["cancel_subscription", "lookup_user", "send_email"];

/// The eight tools every corpus uses, as seed 002's tools map (schemas and metadata).
pub(crate) fn tools_file() -> Value {
    let order_id = json!({"type": "string", "pattern": "^[0-9]{4,7}$"});
    json!({"tools": {
        "get_order": {
            "schema": {"type": "object", "properties": {
                "order_id": order_id,
                "include": {"type": "array", "items": {"enum": ["items", "shipping", "payments"]}}},
                "required": ["order_id"], "additionalProperties": false},
            "metadata": {"side_effecting": false}},
        "search_orders": {
            "schema": {"type": "object", "properties": {
                "query": {"type": "string", "minLength": 1},
                "status": {"enum": ["open", "shipped", "cancelled", "refunded"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
                "required": ["query"], "additionalProperties": false},
            "metadata": {"side_effecting": false, "paginated": true}},
        "refund_order": {
            "schema": {"type": "object", "properties": {
                "order_id": order_id,
                "amount": {"type": "object", "properties": {
                    "value": {"type": "number", "exclusiveMinimum": 0},
                    "currency": {"enum": ["USD", "EUR", "GBP"]}},
                    "required": ["value", "currency"], "additionalProperties": false},
                "reason": {"enum": ["damaged", "late", "wrong_item", "other"]}},
                "required": ["order_id", "amount", "reason"], "additionalProperties": false},
            "metadata": {"side_effecting": true}},
        "update_shipping": {
            "schema": {"type": "object", "properties": {
                "order_id": order_id,
                "address": {"type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"},
                    "postal_code": {"type": "string"},
                    "country": {"type": "string", "pattern": "^[A-Z]{2}$"}},
                    "required": ["street", "city", "country"]}},
                "required": ["order_id", "address"], "additionalProperties": false},
            "metadata": {"side_effecting": true, "idempotent": true}},
        "create_ticket": {
            "schema": {"type": "object", "properties": {
                "title": {"type": "string", "minLength": 3},
                "priority": {"enum": ["low", "normal", "high", "urgent"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "customer": {"type": "object", "properties": {
                    "id": {"type": "string"}, "email": {"type": "string"}},
                    "required": ["id"]}},
                "required": ["title", "priority"], "additionalProperties": false},
            "metadata": {"side_effecting": true}},
        "Bash": {
            "schema": {"type": "object", "properties": {
                "command": {"type": "string", "minLength": 1},
                "timeout": {"type": "integer", "maximum": 600000},
                "description": {"type": "string"}},
                "required": ["command"], "additionalProperties": false},
            "metadata": {"side_effecting": true}},
        "Read": {
            "schema": {"type": "object", "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1}},
                "required": ["file_path"], "additionalProperties": false},
            "metadata": {"side_effecting": false}},
        "Grep": {
            "schema": {"type": "object", "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "output_mode": {"enum": ["content", "files_with_matches", "count"]}},
                "required": ["pattern"], "additionalProperties": false},
            "metadata": {"side_effecting": false}}
    }})
}

const TOOLS: &[&str] = &[
    "get_order",
    "search_orders",
    "refund_order",
    "update_shipping",
    "create_ticket",
    "Bash",
    "Read",
    "Grep",
];

/// Generates runs from one seed.
pub(crate) struct Generator {
    rng: Rng,
    largest: usize,
    /// Results of one line (the short runs of `traces`), not a few hundred bytes to a few KB.
    brief: bool,
}

impl Generator {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            largest: 0,
            brief: false,
        }
    }

    /// Runs whose results are one short line each.
    pub(crate) fn brief(seed: u64) -> Self {
        Self {
            brief: true,
            ..Self::new(seed)
        }
    }

    /// The number of calls of the next run: most runs are 20–180 calls, one in fifty is long.
    pub(crate) fn run_length(&mut self) -> usize {
        if self.rng.chance(20) {
            300 + self.rng.below(300) as usize
        } else {
            20 + self.rng.below(160) as usize
        }
    }

    /// The number of calls of a short run: one to four.
    pub(crate) fn short_run_length(&mut self) -> usize {
        1 + self.rng.below(4) as usize
    }

    /// The most calls any run had.
    pub(crate) fn largest_run(&self) -> usize {
        self.largest
    }

    /// A run of about `calls` tool calls (a loop may add a few).
    pub(crate) fn run(&mut self, index: usize, calls: usize) -> Run {
        self.build(index, |run| run.calls() >= calls)
    }

    /// A run of exactly `steps` native steps (or one more, when the last call's result would
    /// overflow: then that result is dropped).
    pub(crate) fn run_of_steps(&mut self, index: usize, steps: usize) -> Run {
        let mut run = self.build(index, |run| run.steps() + 2 > steps);
        while run.steps() < steps {
            run.events.push(Event::Assistant("Still checking.".into()));
        }
        run
    }

    fn build(&mut self, index: usize, done: impl Fn(&Run) -> bool) -> Run {
        let rng = &mut self.rng;
        let customer = format!("cus_{}", 1000 + rng.below(9000));
        let first_order = format!("{}", 10_000 + rng.below(90_000));
        let mut run = Run {
            index,
            id: format!("run-{index:06}"),
            events: vec![Event::User(format!(
                "Customer {customer} says order {first_order} arrived damaged; sort out a refund, \
                 fix the shipping address to {} and open a ticket. Also check why the build fails.",
                rng.pick(CITIES)
            ))],
            final_answer: String::new(),
        };
        let mut known = vec![first_order, customer];
        let mut done_calls: Vec<Call> = Vec::new();
        let mut n = 0usize;
        let mut loop_left = 0u64;
        while !done(&run) {
            n += 1;
            if loop_left == 0 && !done_calls.is_empty() && self.rng.chance(12) {
                // A loop: the previous call again, two to four times, unchanged, with the same
                // outcome.
                loop_left = 2 + self.rng.below(3);
            }
            let call = if loop_left > 0 {
                loop_left -= 1;
                let mut c = done_calls[done_calls.len() - 1].clone();
                c.id = call_id(index, n);
                c
            } else if done_calls.len() > 3 && self.rng.chance(30) {
                // A repeat of an earlier call.
                let at = self.rng.below(done_calls.len() as u64) as usize;
                let mut c = done_calls[at].clone();
                c.id = call_id(index, n);
                c
            } else {
                self.fresh_call(index, n, &mut known)
            };
            if self.rng.chance(100) {
                run.events.push(Event::Assistant(format!(
                    "Let me look at {} next.",
                    self.rng.pick(&known)
                )));
            }
            done_calls.push(call.clone());
            run.events.push(Event::Call(call));
        }
        run.final_answer = format!("Done: {} tool calls; refund filed.", run.calls());
        self.largest = self.largest.max(run.calls());
        run
    }

    fn fresh_call(&mut self, run: usize, n: usize, known: &mut Vec<String>) -> Call {
        let rng = &mut self.rng;
        let unknown = rng.chance(10);
        let name = if unknown {
            rng.pick(UNKNOWN_TOOLS)
        } else {
            rng.pick(TOOLS)
        };
        // Most ids come from what the agent has seen; one in fifty is made up.
        let order = if rng.chance(20) {
            format!("{}", 10_000 + rng.below(90_000))
        } else {
            rng.pick(known).clone()
        };
        let mut args = valid_args(rng, name, &order);
        if !unknown && rng.chance(22) {
            violate(rng, name, &mut args);
        }
        let error = rng.chance(40);
        let result = if error {
            Value::String(format!(
                "Error: {} failed for {order}: upstream returned 503, try again later",
                name
            ))
        } else {
            let new_id = format!("{}", 100_000 + rng.below(900_000));
            let result = result_for(rng, name, &order, &new_id, self.brief);
            known.push(new_id);
            if known.len() > 64 {
                known.remove(2);
            }
            result
        };
        Call {
            id: call_id(run, n),
            name: name.to_string(),
            args,
            result,
            error,
        }
    }
}

fn call_id(run: usize, n: usize) -> String {
    format!("toolu_{run:06}_{n:05}")
}

fn words(rng: &mut Rng, n: u64) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        let word: &&str = rng.pick(WORDS);
        s.push_str(word);
    }
    s
}

fn valid_args(rng: &mut Rng, name: &str, order: &str) -> Value {
    match name {
        "get_order" => json!({"order_id": order, "include": ["items", "shipping"]}),
        "search_orders" => json!({"query": format!("customer order {order}"),
            "status": *rng.pick(&["open", "shipped", "cancelled", "refunded"]), "limit": 20}),
        "refund_order" => json!({"order_id": order,
            "amount": {"value": (rng.below(50_000) + 100) as f64 / 100.0, "currency": "USD"},
            "reason": *rng.pick(&["damaged", "late", "wrong_item", "other"])}),
        "update_shipping" => {
            let i = rng.below(CITIES.len() as u64) as usize;
            json!({"order_id": order, "address": {"street": format!("{} {} street", rng.below(200) + 1, rng.pick(WORDS)),
                "city": CITIES[i], "postal_code": format!("{:05}", rng.below(99_999)), "country": COUNTRIES[i]}})
        }
        "create_ticket" => json!({"title": format!("Refund for order {order}"),
            "priority": *rng.pick(&["low", "normal", "high", "urgent"]),
            "tags": ["refund", "shipping"], "customer": {"id": "cus_1", "email": "a@example.com"}}),
        "Bash" => {
            json!({"command": format!("grep -rn {order} logs/ | tail -n 20"), "description": "Search the logs"})
        }
        "Read" => json!({"file_path": *rng.pick(FILES), "offset": rng.below(400), "limit": 200}),
        "Grep" => json!({"pattern": order, "path": "src/", "output_mode": "content"}),
        _ => json!({"user_id": order, "reason": words(rng, 4)}),
    }
}

/// Break a valid call the way models do: a required field left out, a value outside an enum,
/// a wrong type, an extra field, a nested object missing a field.
fn violate(rng: &mut Rng, name: &str, args: &mut Value) {
    let Some(m) = args.as_object_mut() else {
        return;
    };
    match rng.below(4) {
        0 => {
            let required = match name {
                "get_order" | "refund_order" | "update_shipping" => "order_id",
                "search_orders" => "query",
                "create_ticket" => "priority",
                "Bash" => "command",
                "Read" => "file_path",
                _ => "pattern",
            };
            m.remove(required);
        }
        1 => {
            if let Some(id) = m.get("order_id").and_then(Value::as_str)
                && let Ok(n) = id.parse::<u64>()
            {
                m.insert("order_id".into(), json!(n));
            } else {
                m.insert("limit".into(), json!("twenty"));
            }
        }
        2 => {
            m.insert("priority_level".into(), json!("rush"));
        }
        _ => match name {
            "refund_order" => {
                m.insert("amount".into(), json!({"value": 12.5}));
            }
            "search_orders" => {
                m.insert("status".into(), json!("lost"));
            }
            "create_ticket" => {
                m.insert("priority".into(), json!("critical"));
            }
            _ => {
                m.insert("timeout".into(), json!(-1));
            }
        },
    }
}

/// A result of a few hundred bytes to a few KB (`brief`: one line), naming a new id the agent
/// may use later.
fn result_for(rng: &mut Rng, name: &str, order: &str, new_id: &str, brief: bool) -> Value {
    let long = rng.chance(200);
    let lines = if brief {
        1
    } else if long {
        8 + rng.below(30)
    } else {
        1 + rng.below(6)
    };
    match name {
        "Bash" | "Read" | "Grep" => {
            let mut out = String::new();
            for i in 0..lines * 2 {
                out.push_str(&format!(
                    "{}:{}: {} {}\n",
                    rng.pick(FILES),
                    i + 1,
                    if i == 0 { new_id } else { order },
                    {
                        let n = 6 + rng.below(8);
                        words(rng, n)
                    }
                ));
            }
            json!({"stdout": out, "exit_code": 0})
        }
        _ => {
            let mut items = Vec::new();
            for i in 0..lines {
                let n = 3 + rng.below(10);
                let note = words(rng, n);
                items.push(json!({"sku": format!("SKU-{}-{i}", rng.below(10_000)),
                    "qty": 1 + rng.below(4), "price": format!("{}.{:02}", rng.below(300), rng.below(100)),
                    "note": note}));
            }
            let mut m = Map::new();
            m.insert("order_id".into(), json!(order));
            m.insert("reference".into(), json!(new_id));
            m.insert(
                "status".into(),
                json!(*rng.pick(&["open", "shipped", "processing"])),
            );
            m.insert("items".into(), Value::Array(items));
            m.insert("history".into(), {
                let n = 10 + rng.below(30);
                json!(words(rng, n))
            });
            Value::Object(m)
        }
    }
}
