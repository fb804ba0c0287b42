//! The distribution tests: the GitHub composite action (`action.yml`, `action/*.sh`) run the way
//! a runner runs it, real checkers on the action and the hooks, real `pre-commit` with both hooks,
//! and the README's snippets kept equal to the files these tests use. External tools come from
//! `scripts/test` (a PyPI venv under the dev cache); without them a test says so and passes,
//! unless `TRACELINT_FULL_TEST` is set, where a missing tool is a failure.

mod action;
mod checkers;
mod injection;
mod install;
mod job;
mod precommit;
mod readme;
mod runner;
mod support;
