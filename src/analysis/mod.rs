//! The machinery the rules share, kept apart from the rules themselves (`crate::rules` holds one
//! file per rule): how a result reads (`outcome`), the calls of a trace as the loop rules compare
//! them (`calls`), what the contract rules share (`contract`), value normalisation
//! (`normalize`), what an agent had observed (`provenance`, searched through `automaton`,
//! `heads`, `bitmap` and `paths`), which numbers R3 judges (`parameters`), what a call does by
//! its arguments (`effects`), whether a result looks like a failure by its content (`suspicion`),
//! schema error listings (`schema_errors`), URLs in text (`urls`) and
//! the one-line excerpt of a step that evidence carries (`excerpt`).
//! No findings are made here. Modules that read a whole trace take the per-trace context
//! (`context::TraceCx`), which caches the outcomes and calls of a trace once for every rule.

pub(crate) mod automaton;
pub(crate) mod bitmap;
pub(crate) mod calls;
pub(crate) mod context;
pub(crate) mod contract;
pub(crate) mod effects;
pub(crate) mod excerpt;
pub(crate) mod heads;
pub(crate) mod normalize;
pub(crate) mod flows;
pub(crate) mod outcome;
pub(crate) mod parameters;
pub(crate) mod paths;
pub(crate) mod provenance;
pub(crate) mod schema_errors;
pub(crate) mod suspicion;
pub(crate) mod urls;
pub(crate) mod word_cache;
