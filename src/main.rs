//! The `tracelint` binary: the command line lives in the library (`commands::main`), next to
//! the pipeline it drives.

/// jemalloc, with one arena for all threads (its settings: `.cargo/config.toml`): a run's
/// memory stays close to what it holds (docs/performance.md).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    tracelint::__main()
}
