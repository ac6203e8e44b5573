//! The argument groups more than one subcommand flattens: what a run reads
//! ([`InputArgs`], and [`ReadArgs`], which adds `--cluster` and the profile, for `lint`,
//! `diff` and `explain`) and which rules run ([`RuleArgs`]). Declared once, so that each
//! subcommand offers the same flags, in the same order, with the same help.

use clap::{Args, ValueHint};

use super::{ClusterArgs, ProfileArgs, values};
use crate::pipeline::MAX_THREADS;

/// Inputs shared by `lint` and `explain`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to read (directories recursively: *.yaml, *.yml, *.json,
    /// except hidden and ignored files); `-` or nothing reads standard input. With
    /// --cluster: TYPE or TYPE/NAME (deploy/web, job/export), or nothing for every
    /// workload.
    #[arg(value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<String>,

    /// Worker threads (0: one per core; at most 1024). Reports are the same whatever
    /// the count: documents are analysed in parallel and reported in input order.
    #[arg(
        short = 'j',
        long,
        value_name = "N",
        default_value_t = 0,
        value_parser = parse_threads,
        hide_short_help = true
    )]
    pub threads: usize,

    /// A file or directory to read, as kubectl's -f (repeatable; `-` reads standard
    /// input): the same as naming it as an argument.
    #[arg(short = 'f', long = "filename", value_name = "PATH", value_hint = ValueHint::AnyPath, help_heading = "Inputs")]
    pub filenames: Vec<String>,

    /// Leave paths matching GLOB out of directory searches (gitignore syntax, relative
    /// to the working directory; repeatable). Paths named on the command line are read.
    #[arg(long, value_name = "GLOB", value_hint = ValueHint::Other, help_heading = "Inputs")]
    pub exclude: Vec<String>,

    /// Search directories without ignoring anything: hidden files, .gitignore, .ignore
    /// and git's exclude files (--exclude still applies).
    #[arg(long, help_heading = "Inputs")]
    pub no_ignore: bool,

    /// Read a directory holding a kustomization or a Helm chart as files, rather than
    /// lint what kubectl kustomize or helm template renders for it.
    #[arg(long, help_heading = "Inputs")]
    pub no_render: bool,

    /// How long each call of kubectl kustomize, helm template (and, for diff --base,
    /// git) may take: 30s, 2m, or 0 for no limit. A call still running then is
    /// stopped with all it started, and its directory is an input error. Also
    /// `renderTimeout` in .mesh-lifecycle.yaml; default 60s.
    #[arg(
        long,
        value_name = "DURATION",
        hide_short_help = true,
        help_heading = "Inputs"
    )]
    #[arg(value_parser = |text: &str| crate::external::Timeout::parse("--render-timeout", text))]
    pub render_timeout: Option<crate::external::Timeout>,

    /// The path that standard input stands for, to name it in every report (SARIF,
    /// GitHub annotations, JUnit, JSON, human).
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath, help_heading = "Inputs")]
    pub stdin_filename: Option<String>,

    /// The most read from one input: a file, standard input, a pipe, an object read
    /// with --cluster.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_input_size: u64,

    /// The largest document parsed.
    #[arg(long, value_name = "SIZE", default_value = "16MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_document_size: u64,

    /// The longest line read.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_line_length: u64,

    /// The largest config or mesh-config file read.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size, hide_short_help = true, help_heading = "Limits")]
    pub max_config_size: u64,
}

impl InputArgs {
    /// Puts the paths given with `-f` among those given as arguments, in the order they
    /// were typed, as kubectl reads them. `None` when `-f` names files where the
    /// arguments are something else (`TYPE/NAME` with `--cluster`): the usage error.
    pub fn gather(&mut self, matches: &clap::ArgMatches, cluster: bool) -> Option<String> {
        if self.filenames.is_empty() {
            return None;
        }
        if cluster {
            return Some(
                "-f/--filename names files, which --cluster does not read: give TYPE or TYPE/NAME as arguments (deploy/web)".to_owned(),
            );
        }
        let indexed = |id: &str| matches.indices_of(id).into_iter().flatten();
        let paths = indexed("paths").zip(std::mem::take(&mut self.paths));
        let named = indexed("filenames").zip(std::mem::take(&mut self.filenames));
        let mut all: Vec<(usize, String)> = paths.chain(named).collect();
        all.sort_by_key(|(index, _)| *index);
        self.paths = all.into_iter().map(|(_, path)| path).collect();
        None
    }
}

/// A `-j` count: 0 (one per core) to [`MAX_THREADS`].
fn parse_threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n <= MAX_THREADS as u64 => Ok(n as usize),
        Ok(_) => Err(format!(
            "at most {MAX_THREADS} worker threads (0 runs one per core)"
        )),
        Err(_) => Err(format!(
            "`{text}` is not a number of threads from 0 to {MAX_THREADS}"
        )),
    }
}

/// A size in bytes: `1048576`, `512KiB`, `16MiB`, `1GiB` (or `K`, `M`, `G`: powers of
/// 1024, as in ripgrep's `--max-filesize`).
pub(super) fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{text}` is not a size such as 4096, 512KiB or 16MiB"
            ));
        }
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("`{text}` is not a size such as 4096, 512KiB or 16MiB"))
}

/// What a run reads and the environment it runs in: files (or with `--cluster`, what a
/// live cluster runs) and the cluster and mesh profile.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// What to read: for `diff`, the second side's files (with --base, --base-dir and
    /// --cluster; default the current directory with --base).
    #[command(flatten)]
    pub input: InputArgs,

    /// What to read from a live cluster instead; for `diff`, the first side is what a
    /// live cluster runs.
    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// The cluster and mesh the manifests run on; for `diff`, today's profile, which
    /// --from and --to change.
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// `--select` and `--ignore`, as `lint`, `diff` and `lsp` take them (`explain --compare`:
/// none, every rule).
#[derive(Debug, Default, Args)]
pub struct RuleArgs {
    /// Run only these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = values::RULE, hide_possible_values = true, help_heading = "Rules")]
    pub select: Vec<String>,

    /// Skip these rules (ids or names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = values::RULE, hide_possible_values = true, help_heading = "Rules")]
    pub ignore: Vec<String>,

    /// How a finding that rests on a premise the input does not prove counts:
    /// `lowered` as its rule's doc states (default), or `full`, at the rule's severity.
    #[arg(long, value_name = "HOW", value_parser = ["lowered", "full"], help_heading = "Rules")]
    pub assumed_losses: Option<String>,
}

impl RuleArgs {
    /// The rules these flags run, or why a name is not one.
    pub fn policy(&self) -> Result<crate::rules::selector::Policy, String> {
        let mut policy = crate::rules::selector::Policy::from_flags(&self.select, &self.ignore)?;
        policy.assumed_losses = self
            .assumed_losses
            .as_deref()
            .and_then(crate::rules::AssumedLosses::parse);
        Ok(policy)
    }
}
