//! How directories given as INPUT are walked: shared by `check`, `doctor`, `init` and `infer`.

use clap::Args;

/// Walk options.
#[derive(Debug, Args, Clone, Default)]
pub struct WalkArgs {
    /// Leave out files and directories matching GLOB when walking directories or expanding globs (a file named on the command line is always read): a pattern without `/` matches any name (`node_modules`, `*.min.json`), one with `/` the path from here (`runs/old/**`). Repeatable; adds to the config's `exclude`.
    #[arg(long = "exclude", value_name = "GLOB", help_heading = "Input")]
    pub exclude: Vec<String>,

    /// Walk files that `.gitignore` (inside a git repository), `.git/info/exclude` and `.ignore` files leave out; they are respected by default.
    #[arg(long, help_heading = "Input")]
    pub no_ignore: bool,
}

impl WalkArgs {
    /// The walk these flags ask for, with `config` exclusions (pattern, folder it is relative
    /// to) first.
    pub fn walk(&self, config: &[(String, std::path::PathBuf)]) -> Result<crate::inputs::Walk, String> {
        let mut patterns = config.to_vec();
        patterns.extend(self.exclude.iter().map(|p| (p.clone(), std::path::PathBuf::new())));
        Ok(crate::inputs::Walk {
            respect_ignore_files: !self.no_ignore,
            exclude: crate::inputs::Exclude::new(&patterns)?,
        })
    }
}
