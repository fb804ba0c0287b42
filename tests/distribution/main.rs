//! The distribution tests: the GitHub composite action (`action.yml`, `action/*.sh`) run the way
//! a runner runs it (its release download against a loopback server), real checkers on the
//! action, the workflows and the hooks, real `pre-commit` with every hook route, the wheel
//! maturin builds (its module in the eval frameworks, on Ray Data and against a real Phoenix), the
//! release pieces against each other, and docs/ci.md's snippets kept equal
//! to the files these tests use. External tools come from
//! `scripts/test` (a PyPI venv under the dev cache); without them a test says so and passes,
//! unless `TRACELINT_FULL_TEST` is set, where a missing tool is a failure.

mod action;
mod binstall;
mod checkers;
mod download;
mod eval_peers;
mod injection;
mod install;
mod job;
mod phoenix_python;
#[path = "../phoenix/server.rs"]
mod phoenix_server;
mod precommit;
mod python_module;
mod readme;
mod rehearsal;
mod release_server;
mod runner;
mod support;
mod wheel;
