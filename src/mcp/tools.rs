//! The tools: `lint`, `explain`, `rules`, `diff` and `fix`, each the command line's
//! command run with the call's arguments.

use std::path::{Path, PathBuf};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::schemars::JsonSchema;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::child::{self, Ran};
use super::options::Options;
use crate::external::Args;

/// The largest file `fix` reads to return its fixed text.
const MAX_FIX_BYTES: u64 = 16 << 20;

/// What to read: paths, or manifest text.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct Manifests {
    /// Files or directories to read, relative to the server's working directory
    /// (directories recursively: *.yaml, *.yml, *.json; a kustomization or a Helm chart
    /// is rendered first).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Manifest text (YAML or JSON, one or more documents) to read instead of paths.
    pub yaml: Option<String>,
    /// The file name the text is reported under (default `-`).
    pub filename: Option<String>,
}

/// The cluster and mesh the manifests run on, as the command line's flags set them.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct Profile {
    /// The config file (default: the nearest .mesh-lifecycle.yaml at or above the
    /// server's working directory).
    pub config: Option<String>,
    /// Kubernetes version of the cluster (1.x).
    pub kubernetes_version: Option<String>,
    /// Istio version (1.x).
    pub istio_version: Option<String>,
    /// Linkerd version (2.x, version-2.x or edge-yy.m.n).
    pub linkerd_version: Option<String>,
    /// Mesh releases, `MESH=VERSION` separated by commas (MESH one of istio, linkerd,
    /// kuma, consul, dapr, cloud-sql-proxy).
    pub mesh_version: Option<String>,
}

/// `lint`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct LintParams {
    /// What to read.
    #[serde(flatten)]
    pub manifests: Manifests,
    /// The cluster and mesh.
    #[serde(flatten)]
    pub profile: Profile,
    /// Run only these rules (ids or names).
    #[serde(default)]
    pub select: Vec<String>,
    /// Skip these rules (ids or names).
    #[serde(default)]
    pub ignore: Vec<String>,
}

/// `explain`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ExplainParams {
    /// What to read.
    #[serde(flatten)]
    pub manifests: Manifests,
    /// The cluster and mesh.
    #[serde(flatten)]
    pub profile: Profile,
    /// Only workloads with this name.
    pub workload: Option<String>,
    /// Only workloads of this kind (Deployment, Job, ...).
    pub kind: Option<String>,
}

/// `rules`' arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct RulesParams {
    /// A rule id (ML201) or name (grace-period-exceeded) whose documentation to return;
    /// none lists every rule.
    pub rule: Option<String>,
}

/// `diff`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct DiffParams {
    /// The second side's manifests (with `base`, the working tree's files).
    #[serde(flatten)]
    pub manifests: Manifests,
    /// Today's cluster and mesh, which `from` and `to` change.
    #[serde(flatten)]
    pub profile: Profile,
    /// The first side's profile changes (KEY=VALUE: istio=1.22, kubernetes=1.28).
    #[serde(default)]
    pub from: Vec<String>,
    /// The second side's profile changes (KEY=VALUE: istio=1.27).
    #[serde(default)]
    pub to: Vec<String>,
    /// A git revision whose files are the first side, the working tree the second.
    pub base: Option<String>,
}

/// `fix`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct FixParams {
    /// The manifest files (not directories) or text to fix.
    #[serde(flatten)]
    pub manifests: Manifests,
    /// The cluster and mesh.
    #[serde(flatten)]
    pub profile: Profile,
    /// Also make the unsafe fixes (a longer grace period, a different stop command).
    #[serde(default)]
    pub unsafe_fixes: bool,
    /// Write the fixed files back (only when the server was started with
    /// --allow-writes, and only under its working directory).
    #[serde(default)]
    pub write: bool,
    /// Fix only these rules' findings (ids or names).
    #[serde(default)]
    pub select: Vec<String>,
}

/// The server: the tools and how they run.
#[derive(Clone)]
pub struct Server {
    options: Options,
    tool_router: ToolRouter<Server>,
}

#[tool_router]
impl Server {
    /// A server whose tools run as `options` says.
    pub fn new(options: Options) -> Server {
        Server {
            options,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Lint Kubernetes manifests for the traffic a service mesh loses as pods start and stop (sidecar start-up order, grace periods, drains, Jobs that never complete). Returns the JSON report of `lint --format json`: each finding with its rule, severity, file and line, message, help, evidence and fix.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn lint(
        &self,
        Parameters(params): Parameters<LintParams>,
    ) -> Result<CallToolResult, String> {
        let args = Args::new().words(&["lint", "--format=json", "--color=never"]);
        let args = rule_args(
            profile_args(args, &params.profile),
            &params.select,
            &params.ignore,
        );
        let (args, stdin) = input_args(args, &params.manifests)?;
        let ran = self.run(args, stdin).await?;
        Ok(json_result(&ran, &[0, 1, 2], "result"))
    }

    #[tool(
        description = "Explain each workload's simulated start-up and shutdown timeline: when each container starts, is ready, is signalled and exits, as the kubelet and the mesh's proxy do it. Returns the timeline as text and as the JSON of `explain --format json`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn explain(
        &self,
        Parameters(params): Parameters<ExplainParams>,
    ) -> Result<CallToolResult, String> {
        let explain = |format: &'static str| {
            let mut args = profile_args(
                Args::new().words(&["explain", format, "--color=never"]),
                &params.profile,
            );
            if let Some(workload) = &params.workload {
                args = args.option("--workload", workload);
            }
            if let Some(kind) = &params.kind {
                args = args.option("--kind", kind);
            }
            input_args(args, &params.manifests)
        };
        let (text_args, stdin) = explain("--format=text")?;
        let (json_args, _) = explain("--format=json")?;
        let text = self.run(text_args, stdin.clone()).await?;
        let ran = self.run(json_args, stdin).await?;
        let mut result = json_result(&ran, &[0, 1, 2], "result");
        if result.is_error != Some(true) {
            result.content.insert(0, ContentBlock::text(text.stdout));
        }
        Ok(result)
    }

    #[tool(
        description = "The rule catalog: with a rule id (ML201) or name, that rule's documentation in Markdown (what it finds, why traffic is lost, how to fix it); without one, every rule's id, name, severity and summary as JSON.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn rules(
        &self,
        Parameters(params): Parameters<RulesParams>,
    ) -> Result<CallToolResult, String> {
        match &params.rule {
            Some(rule) => {
                let args = Args::new()
                    .words(&["rules", "--format=markdown"])
                    .operand(rule);
                let ran = self.run(args, None).await?;
                Ok(text_result(&ran))
            }
            None => {
                let ran = self
                    .run(Args::new().words(&["rules", "--format=json"]), None)
                    .await?;
                Ok(json_result(&ran, &[0], "rules"))
            }
        }
    }

    #[tool(
        description = "Compare two sides of the same workloads: two profiles (from/to: istio=1.22 → istio=1.27), or a git revision (base) and the working tree. Returns the JSON of `diff --format json`: findings added, removed and changed, and timeline moves, per workload.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn diff(
        &self,
        Parameters(params): Parameters<DiffParams>,
    ) -> Result<CallToolResult, String> {
        let mut args = Args::new().words(&[
            "diff",
            "--format=json",
            "--color=never",
            "--fail-on-new=never",
        ]);
        args = profile_args(args, &params.profile);
        for from in &params.from {
            args = args.option("--from", from);
        }
        for to in &params.to {
            args = args.option("--to", to);
        }
        if let Some(base) = &params.base {
            args = args.option("--base", base);
        }
        if params.base.is_none() && params.from.is_empty() && params.to.is_empty() {
            return Err(
                "say what the two sides are: `from`/`to` profile changes, or a `base` revision"
                    .to_owned(),
            );
        }
        let (args, stdin) = if params.base.is_some()
            && params.manifests.paths.is_empty()
            && params.manifests.yaml.is_none()
        {
            (args, None)
        } else {
            input_args(args, &params.manifests)?
        };
        let ran = self.run(args, stdin).await?;
        Ok(json_result(&ran, &[0, 1, 2], "result"))
    }

    #[tool(
        description = "Fix the findings that have a mechanical fix and return the fixed text (of each file, or of the text given). Writes nothing unless `write` is true and the server was started with --allow-writes, and then only files under its working directory.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn fix(
        &self,
        Parameters(params): Parameters<FixParams>,
    ) -> Result<CallToolResult, String> {
        let mut flags = Args::new().words(&["lint", "--fix-only", "--color=never"]);
        if params.unsafe_fixes {
            flags = flags.word("--unsafe-fixes");
        }
        let flags = rule_args(profile_args(flags, &params.profile), &params.select, &[]);
        if let Some(text) = &params.manifests.yaml {
            if params.write {
                return Err("`write` needs paths: the text given has no file to write".to_owned());
            }
            let (args, stdin) = input_args(flags, &params.manifests)?;
            let ran = self.run(args, stdin).await?;
            if ran.status != Some(0) {
                return Ok(failed(&ran));
            }
            return Ok(CallToolResult::structured(json!({
                "fixed": ran.stdout,
                "changed": ran.stdout != *text,
            })));
        }
        if params.manifests.paths.is_empty() {
            return Err("give `paths` or `yaml`".to_owned());
        }
        if params.write && !self.options.allow_writes {
            return Err("this server does not write files: start it with `mcp --allow-writes`, or call fix without `write` for the fixed text".to_owned());
        }
        let mut files = Vec::new();
        for path in &params.manifests.paths {
            let file = self.file_under_root(path, params.write)?;
            let text = read_bounded(&file)?;
            let fixed = if params.write {
                let ran = self.run(flags.clone().operand(&file), None).await?;
                if ran.status != Some(0) {
                    return Ok(failed(&ran));
                }
                read_bounded(&file)?
            } else {
                let args = flags.clone().option("--stdin-filename", path).operand("-");
                let ran = self.run(args, Some(text.clone())).await?;
                if ran.status != Some(0) {
                    return Ok(failed(&ran));
                }
                ran.stdout
            };
            files.push(json!({
                "path": path,
                "changed": fixed != text,
                "written": params.write && fixed != text,
                "fixed": fixed,
            }));
        }
        Ok(CallToolResult::structured(json!({ "files": files })))
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "kubectl-mesh-lifecycle",
    instructions = "Lints Kubernetes manifests for service-mesh sidecar start-up and shutdown hazards. `lint` finds them (with evidence and fixes), `explain` shows a workload's timeline, `rules` documents a rule, `diff` compares two mesh versions or revisions, `fix` returns the fixed text."
)]
impl ServerHandler for Server {}

impl Server {
    async fn run(&self, args: Args, stdin: Option<String>) -> Result<Ran, String> {
        child::run(
            &self.options.program,
            &self.options.root,
            args,
            stdin,
            self.options.tool_timeout,
        )
        .await
    }

    /// `path` as a file under the working directory, through any link; for reading,
    /// any file the server may read, for writing, only one under the root.
    fn file_under_root(&self, path: &str, write: bool) -> Result<PathBuf, String> {
        let joined = self.options.root.join(path);
        let real = std::fs::canonicalize(&joined).map_err(|error| format!("{path}: {error}"))?;
        if !real.is_file() {
            return Err(format!("{path}: not a file (fix takes files)"));
        }
        let root =
            std::fs::canonicalize(&self.options.root).unwrap_or_else(|_| self.options.root.clone());
        if write && !real.starts_with(&root) {
            return Err(format!(
                "{path}: outside the server's working directory {}, which is the only place it writes",
                root.display()
            ));
        }
        Ok(real)
    }
}

/// The profile's flags, each value glued to its name.
fn profile_args(mut args: Args, profile: &Profile) -> Args {
    let flags = [
        ("--config", &profile.config),
        ("--kubernetes-version", &profile.kubernetes_version),
        ("--istio-version", &profile.istio_version),
        ("--linkerd-version", &profile.linkerd_version),
        ("--mesh-version", &profile.mesh_version),
    ];
    for (flag, value) in flags {
        if let Some(value) = value {
            args = args.option(flag, value);
        }
    }
    args
}

fn rule_args(mut args: Args, select: &[String], ignore: &[String]) -> Args {
    for rule in select {
        args = args.option("--select", rule);
    }
    for rule in ignore {
        args = args.option("--ignore", rule);
    }
    args
}

/// The inputs as operands (after `--`, so that no path is read as a flag), or `-` and
/// the text for standard input.
fn input_args(args: Args, manifests: &Manifests) -> Result<(Args, Option<String>), String> {
    match (&manifests.yaml, manifests.paths.is_empty()) {
        (Some(_), false) => Err("give `paths` or `yaml`, not both".to_owned()),
        (Some(text), true) => {
            let args = match &manifests.filename {
                Some(name) => args.option("--stdin-filename", name),
                None => args,
            };
            Ok((args.operand("-"), Some(text.clone())))
        }
        (None, true) => Err("give `paths` or `yaml`".to_owned()),
        (None, false) => Ok((
            manifests
                .paths
                .iter()
                .fold(args, |args, path| args.operand(path)),
            None,
        )),
    }
}

/// A run whose standard output is JSON: its value as the structured result (an
/// object; anything else under `key`), its notes on standard error after it; an
/// error result when its status is not among `expected` or it printed no JSON.
fn json_result(ran: &Ran, expected: &[i32], key: &str) -> CallToolResult {
    let parsed: Option<Value> = serde_json::from_str(&ran.stdout).ok();
    match parsed {
        Some(value) if ran.status.is_some_and(|status| expected.contains(&status)) => {
            let value = if value.is_object() {
                value
            } else {
                Value::Object([(key.to_owned(), value)].into_iter().collect())
            };
            let mut result = CallToolResult::structured(value);
            if !ran.stderr.trim().is_empty() {
                result.content.push(ContentBlock::text(ran.stderr.clone()));
            }
            result
        }
        _ => failed(ran),
    }
}

/// A run whose standard output is text.
fn text_result(ran: &Ran) -> CallToolResult {
    if ran.status == Some(0) {
        CallToolResult::success(vec![ContentBlock::text(ran.stdout.clone())])
    } else {
        failed(ran)
    }
}

/// A run that failed: what it said, as an error result the assistant can read.
fn failed(ran: &Ran) -> CallToolResult {
    let said = if ran.stderr.trim().is_empty() {
        &ran.stdout
    } else {
        &ran.stderr
    };
    let status = match ran.status {
        Some(code) => format!("exit status {code}"),
        None => "ended by a signal".to_owned(),
    };
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{status}: {}",
        said.trim_end()
    ))])
}

fn read_bounded(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path)
        .map_err(|error| format!("{}: {error}", path.display()))?
        .len();
    if size > MAX_FIX_BYTES {
        return Err(format!(
            "{}: larger than {} MiB",
            path.display(),
            MAX_FIX_BYTES >> 20
        ));
    }
    std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))
}
