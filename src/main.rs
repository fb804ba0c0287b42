//! The `tracelint` binary: the command line lives in the library (`commands::main`), next to
//! the pipeline it drives.

fn main() -> std::process::ExitCode {
    tracelint::__main()
}
