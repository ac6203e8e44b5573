//! `lint --fix`, `--fix-only` and `--diff`: the library's fix loop
//! ([`crate::pipeline::fix::rounds`]) over every input at once, each input's result then
//! written back ([`crate::fix::write`]), printed (standard input) or shown as a diff.
//!
//! Each input is taken on its own terms. A file is fixed in place, except its
//! documents Helm rendered (`# Source: chart/templates/…`), whose fixes belong in the
//! chart and are shown as a diff. Standard input is printed back, fixed, on standard
//! output (the report, of the stream printed, then goes to `--output-file`, or
//! standard error). A stream (`<(…)`),
//! the output of a kustomization or a chart the run rendered, and an object read with
//! `--cluster` cannot be written back: they get the diff. A
//! file that cannot be written is an error of that file alone: the others are fixed,
//! the report is printed, the status is 2. The report that follows is that of the
//! inputs as they now stand, so the exit status of an input that was not written back
//! is that of the findings it still has.

use std::io::{self, Write};

use super::LintArgs;
use crate::fix::{self, Applicability};
use crate::load::rendered::{Renderer, Rendering};
use crate::load::{InputError, Source};
use crate::pipeline::fix::{FixedText, InputFix, Made, rounds};
use crate::pipeline::{self, FixMode, RunOptions};
use crate::report::paths::{Artifact, PathBase};
use crate::rules::RuleMeta;

/// What the fixes came to, for the report that follows them.
#[derive(Debug, Default)]
pub struct Done {
    /// Findings whose fix was written back to a file or made in the fixed standard
    /// input printed, with those another finding's fix cleared.
    pub fixed: usize,
    /// Those fixes, by file and rule, for `--show-fixes`.
    pub by_file: Vec<(String, Vec<(&'static RuleMeta, usize)>)>,
    /// Files that could not be written, as errors of those files.
    pub unwritten: Vec<InputError>,
    /// Findings whose fix could not be written back where it was read from (an object
    /// of the cluster, a rendered or streamed document), so it was shown as a diff.
    pub shown: usize,
    /// Whether the fixed standard input took standard output, so the report goes
    /// elsewhere.
    pub stdout_taken: bool,
    /// The fixed standard input printed on standard output: the report that follows is
    /// of it, as ruff reports a fixed standard input, so that it offers no fix `--fix`
    /// already made.
    pub stdin_fixed: Option<String>,
}

/// How the run goes on.
pub enum Next {
    /// Report the inputs as they now stand.
    Report(Done),
    /// Nothing more: exit with this status.
    Exit(u8),
}

/// Where one input's fixed text goes.
enum Target<'a> {
    /// Written back to the file, but for its Helm-rendered documents.
    File(&'a std::path::Path),
    /// Printed on standard output.
    Stdout,
    /// Nowhere: it gets the diff, and why.
    DiffOnly(&'static str),
}

/// Fixes every input for `lint --fix`/`--fix-only`, or prints the diff for `--diff`.
pub fn run(
    args: &LintArgs,
    prepared: &super::inputs::Prepared,
    options: &RunOptions,
) -> io::Result<Next> {
    let at_least = if args.unsafe_fixes {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    let options = RunOptions {
        fixes: FixMode::Apply(at_least),
        ..options.clone()
    };
    let mut session = Session::new(args, prepared)?;
    if session.reports_nothing() {
        // No report follows to name what could not be read: said here.
        prepared.print_errors(args.output.stderr_style());
    }
    // The inputs as read, not what the context pass parsed: every piece's text is
    // fixed, and written back whole.
    let inputs = prepared.inputs.unparsed();
    let sources = inputs.sources();
    let mut current: Option<(usize, InputFix)> = None;
    let workers = pipeline::run_indexed(
        &inputs,
        &prepared.profile.settings,
        &options,
        |input, report| {
            if current.as_ref().is_some_and(|(at, _)| *at != input)
                && let Some((at, done)) = current.take()
            {
                session.input(&sources[at], inputs.rendering(at), done.finish());
            }
            current
                .get_or_insert_with(|| (input, InputFix::default()))
                .1
                .add(&report);
        },
    );
    if let Some((at, done)) = current.take() {
        session.input(&sources[at], inputs.rendering(at), done.finish());
    }
    if let Some(shortfall) = workers.shortfall() {
        session.note(&shortfall);
    }
    session.finish()
}

/// The state of a fix run across its inputs.
struct Session<'a> {
    args: &'a LintArgs,
    /// What the run reads, which no fix may be written over but the input fixed.
    guard: &'a super::overwrite::ReadFiles,
    from_cluster: bool,
    /// Where `--diff` writes: `--output-file`, or standard output.
    diff_out: Option<Box<dyn Write>>,
    stdout: io::StdoutLock<'static>,
    /// Whether standard output (or the diff's file) went away.
    closed: bool,
    /// Findings `--diff` would fix (those `--fix` writes back), those it shows but
    /// `--fix` could not write back either (rendered, streamed or read from the
    /// cluster), and whether any file would change.
    would_fix: usize,
    would_show: usize,
    changed: bool,
    /// Findings with an unsafe fix that passed its check, which a run without
    /// `--unsafe-fixes` leaves (ruff's "hidden fixes").
    hidden: usize,
    /// What could not be read, for `--diff` and `--fix-only`, which print no report.
    errors: usize,
    base: Option<PathBase>,
    done: Done,
}

impl<'a> Session<'a> {
    fn new(args: &'a LintArgs, prepared: &'a super::inputs::Prepared) -> io::Result<Session<'a>> {
        let diff_out = if args.diff {
            Some(args.output.writer()?.0)
        } else {
            None
        };
        Ok(Session {
            args,
            guard: &prepared.guard,
            from_cluster: prepared.cluster.is_some(),
            diff_out,
            stdout: io::stdout().lock(),
            closed: false,
            would_fix: 0,
            would_show: 0,
            changed: false,
            hidden: 0,
            errors: prepared.errors.len(),
            base: PathBase::current_dir().ok(),
            done: Done::default(),
        })
    }

    /// Whether the run ends here, without the report of what stands: `--diff` and
    /// `--fix-only`.
    fn reports_nothing(&self) -> bool {
        self.args.diff || self.args.fix_only
    }

    fn note(&self, text: &str) {
        if !self.args.quiet {
            super::diagnostic(&format!("note: {text}\n"));
        }
    }

    /// Handles one input once every piece of it is fixed; `rendering` says where it was
    /// rendered from, when the run rendered it.
    fn input(&mut self, source: &Source, rendering: Option<&Rendering>, fixed: FixedText) {
        let name = source.name();
        self.errors += fixed.errors.len();
        if self.reports_nothing() {
            let style = self.args.output.stderr_style();
            for error in &fixed.errors {
                super::diagnostic(&crate::report::human::render_input_error(error, style));
            }
        }
        for refused in &fixed.refused {
            self.note(&format!(
                "{name}:{}: the fix for {} was not made: {}",
                refused.line, refused.rule, refused.reason
            ));
        }
        if fixed.unfinished {
            self.note(&format!(
                "{name}: fixes still due after {} rounds; not every fix was made",
                rounds::MAX_ROUNDS
            ));
        }
        let path = self.diff_path(name);
        let all_made = fixed.made.len() + fixed.made_rendered.len();
        self.hidden += fixed.hidden;
        let rendered_by = rendering.map(|rendering| match rendering.renderer {
            Renderer::Kustomize => {
                "it was rendered by kubectl kustomize; change the kustomization's files instead"
            }
            Renderer::Helm => "it was rendered by Helm; change the chart's templates instead",
        });
        let target = if self.from_cluster {
            Target::DiffOnly("it was read from the cluster; change its manifest instead")
        } else if let Some(why) = rendered_by {
            Target::DiffOnly(why)
        } else {
            match source {
                Source::File { path, .. } => Target::File(path),
                Source::Stdin { .. } => Target::Stdout,
                Source::Stream { .. } => {
                    Target::DiffOnly("it is a stream, not a file it can be written back to")
                }
            }
        };
        if self.args.diff {
            // Counted as `--fix` would write them: a Helm-rendered document's fixes and
            // those of an input that is not written back apart.
            let written = match target {
                Target::File(_) if !fixed.incomplete => fixed.made.len(),
                Target::Stdout if !fixed.incomplete => all_made,
                _ => 0,
            };
            self.would_fix += written;
            self.would_show += all_made - written;
            if fixed.fixed != fixed.original {
                self.changed = true;
                let diff = self.diff(&path, &fixed.original, &fixed.fixed);
                self.emit_diff(&diff);
            }
            return;
        }
        if matches!(target, Target::Stdout) {
            // Standard output holds the fixed stream, or nothing rather than half of it.
            self.done.stdout_taken = true;
        }
        if fixed.incomplete {
            // Part of its text could not be read: writing it back would lose that part.
            if all_made > 0 {
                self.note(&format!(
                    "{name}: not fixed: a part of it could not be read, so it is not written back"
                ));
            }
            return;
        }
        match target {
            Target::File(file) => {
                let refused = self.guard.refuse(super::overwrite::Writer::Fix, file);
                if fixed.in_place != fixed.original
                    && let Some(refusal) = refused
                {
                    let error = InputError::whole(
                        name.clone(),
                        format!(
                            "{} not written: {refusal}; the file is as it was",
                            count(fixed.made.len())
                        ),
                    );
                    super::diagnostic(&format!("error: {error}\n"));
                    self.done.unwritten.push(error);
                } else if fixed.in_place != fixed.original {
                    match fix::write::replace(file, &fixed.original, &fixed.in_place) {
                        Ok(()) => {
                            self.done.fixed += fixed.made.len() + fixed.also_cleared;
                            self.done
                                .by_file
                                .push((name.to_string(), by_rule(&fixed.made)));
                        }
                        Err(error) => {
                            let error = InputError::whole(
                                name.clone(),
                                format!(
                                    "{} not written: {error}; the file is as it was",
                                    count(fixed.made.len())
                                ),
                            );
                            super::diagnostic(&format!("error: {error}\n"));
                            self.done.unwritten.push(error);
                        }
                    }
                }
                if !fixed.made_rendered.is_empty() {
                    self.done.shown += fixed.made_rendered.len();
                    let why = format!(
                        "rendered by Helm from {}; change the chart's templates instead",
                        fixed.rendered_from.join(", ")
                    );
                    self.diff_only(name, &path, &fixed.in_place, &fixed.fixed, &why);
                }
            }
            Target::Stdout => {
                if !self.closed {
                    let written = self
                        .stdout
                        .write_all(fixed.fixed.as_bytes())
                        .and_then(|()| self.stdout.flush());
                    self.closed |= written.is_err();
                }
                if all_made > 0 {
                    self.note(&format!(
                        "{name}: {} made in the stream printed on standard output",
                        count(all_made)
                    ));
                }
                self.done.fixed += all_made + fixed.also_cleared;
                self.done.stdin_fixed = Some(fixed.fixed);
            }
            Target::DiffOnly(why) => {
                if fixed.fixed != fixed.original {
                    self.done.shown += all_made;
                    self.diff_only(name, &path, &fixed.original, &fixed.fixed, why);
                }
            }
        }
    }

    /// Shows, on standard error, the fixes of an input that is not written back.
    fn diff_only(&self, name: &str, path: &str, from: &str, to: &str, why: &str) {
        if self.args.quiet {
            return;
        }
        super::diagnostic(&format!(
            "note: {name}: not written back, {why}; the fixes as a diff:\n{}",
            fix::unified_diff(path, from, to)
        ));
    }

    /// Writes a diff of `--diff`, unless its reader went away.
    fn emit_diff(&mut self, diff: &str) {
        if self.closed {
            return;
        }
        let out = self.diff_out.as_mut().expect("--diff has its output");
        if let Err(error) = out.write_all(diff.as_bytes()) {
            self.closed = true;
            if error.kind() != io::ErrorKind::BrokenPipe {
                super::diagnostic(&format!("error: {error}\n"));
                self.errors += 1;
            }
        }
    }

    fn finish(mut self) -> io::Result<Next> {
        if self.args.diff {
            if let Some(out) = self.diff_out.as_mut()
                && !self.closed
                && let Err(error) = out.flush()
                && error.kind() != io::ErrorKind::BrokenPipe
            {
                return Err(error);
            }
            if !self.args.quiet {
                let mut line = format!("Would fix {}", findings(self.would_fix));
                if self.would_show > 0 {
                    line.push_str(&format!(
                        "; {} more in the diff in rendered, streamed or cluster documents, \
                         which --fix cannot write back: make them in their sources",
                        self.would_show
                    ));
                }
                super::diagnostic(&format!("{line}{}.\n", self.hidden_fixes()));
            }
            return Ok(Next::Exit(if self.errors > 0 {
                2
            } else {
                u8::from(self.changed)
            }));
        }
        if self.args.fix_only {
            let line = format!(
                "Fixed {}{}.\n",
                findings(self.done.fixed),
                self.hidden_fixes()
            );
            if !self.args.quiet || self.done.fixed > 0 {
                super::diagnostic(&line);
            }
            let status = if self.errors > 0 || !self.done.unwritten.is_empty() {
                2
            } else {
                u8::from(self.args.exit_non_zero_on_fix && self.done.fixed > 0)
            };
            return Ok(Next::Exit(status));
        }
        Ok(Next::Report(self.done))
    }

    /// " (2 hidden fixes can be enabled with the `--unsafe-fixes` option)", as ruff
    /// ends its `--diff` and `--fix` lines, when the run leaves unsafe fixes; else "".
    fn hidden_fixes(&self) -> String {
        match self.hidden {
            0 => String::new(),
            _ if self.args.unsafe_fixes => String::new(),
            1 => " (1 hidden fix can be enabled with the `--unsafe-fixes` option)".to_owned(),
            n => format!(" ({n} hidden fixes can be enabled with the `--unsafe-fixes` option)"),
        }
    }

    /// The diff `--diff` prints of `path`: git's headers, or without their prefixes
    /// with `--no-prefix`.
    fn diff(&self, path: &str, from: &str, to: &str) -> String {
        if self.args.no_prefix {
            fix::unified_diff_without_prefix(path, from, to)
        } else {
            fix::unified_diff(path, from, to)
        }
    }

    /// The path the headers of an input's diff name: relative to the current directory
    /// when the file lies under it (`./deploy/x.yaml` and `$PWD/deploy/x.yaml` are both
    /// `deploy/x.yaml`), so that `git apply` takes the diff there; else absolute;
    /// standard input by its `--stdin-filename`, or `-`.
    fn diff_path(&self, name: &str) -> String {
        let Some(base) = &self.base else {
            return name.to_owned();
        };
        match base.artifact(name) {
            Artifact::Stdin => name.to_owned(),
            Artifact::Relative(path) => path,
            Artifact::Absolute(path) => path.to_string_lossy().into_owned(),
        }
    }
}

/// Fixes made, by rule in the order first made.
fn by_rule(made: &[Made]) -> Vec<(&'static RuleMeta, usize)> {
    let mut rules: Vec<(&'static RuleMeta, usize)> = Vec::new();
    for made in made {
        match rules.iter_mut().find(|(rule, _)| rule.id == made.rule.id) {
            Some((_, n)) => *n += 1,
            None => rules.push((made.rule, 1)),
        }
    }
    rules
}

/// "1 fix", "3 fixes".
fn count(n: usize) -> String {
    match n {
        1 => "1 fix".to_owned(),
        n => format!("{n} fixes"),
    }
}

/// "1 finding", "3 findings".
pub fn findings(n: usize) -> String {
    match n {
        1 => "1 finding".to_owned(),
        n => format!("{n} findings"),
    }
}
