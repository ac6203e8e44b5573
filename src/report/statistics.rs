//! `lint --statistics`: how many findings each rule made and how many of them `--fix`
//! fixes, instead of the findings, as ruff's `--statistics` prints them: one line per
//! rule, the most frequent first, `count<TAB>id<TAB>[*] name`. `[*]` says `--fix`
//! fixes every one of them, `[-]` some, `[ ]` none; with `-o json`, the same as an
//! array of `{code, name, count, fixableCount}`.

use std::io::{self, Write};

use serde::Serialize;

use super::style::{Style, Tone};
use super::{Reporter, Summary};
use crate::load::InputError;
use crate::pipeline::located::Located;
use crate::rules::RuleMeta;

/// One rule's counts.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Statistic {
    code: &'static str,
    name: &'static str,
    count: usize,
    fixable_count: usize,
}

/// Counts findings by rule and prints the table, or its JSON, at the end.
pub struct StatisticsReporter<W: Write> {
    out: W,
    style: Style,
    json: bool,
    /// `--unsafe-fixes`: `--fix` makes the unsafe fixes too, so they count as fixable.
    unsafe_fixes: bool,
    rules: Vec<(&'static RuleMeta, Statistic)>,
}

impl<W: Write> StatisticsReporter<W> {
    /// A reporter writing the table (or, with `json`, its JSON) to `out`.
    pub fn new(out: W, style: Style, json: bool, unsafe_fixes: bool) -> Self {
        StatisticsReporter {
            out,
            style,
            json,
            unsafe_fixes,
            rules: Vec::new(),
        }
    }

    /// The rules, the most findings first, then by id.
    fn sorted(&mut self) -> Vec<Statistic> {
        let mut rules: Vec<Statistic> = std::mem::take(&mut self.rules)
            .into_iter()
            .map(|(_, statistic)| statistic)
            .collect();
        rules.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
        rules
    }
}

impl<W: Write> Reporter for StatisticsReporter<W> {
    fn findings(&mut self, findings: &[&Located]) -> io::Result<()> {
        let counted = findings
            .iter()
            .filter(|located| located.suppressed.is_none() && !located.baselined);
        for located in counted {
            let finding = &located.finding;
            let at = match self.rules.iter().position(|(r, _)| r.id == finding.rule.id) {
                Some(at) => at,
                None => {
                    self.rules.push((
                        finding.rule,
                        Statistic {
                            code: finding.rule.id,
                            name: finding.rule.name,
                            count: 0,
                            fixable_count: 0,
                        },
                    ));
                    self.rules.len() - 1
                }
            };
            let statistic = &mut self.rules[at].1;
            statistic.count += 1;
            statistic.fixable_count += usize::from(located.fixable(self.unsafe_fixes));
        }
        Ok(())
    }

    fn input_error(&mut self, _: &InputError) -> io::Result<()> {
        // Input errors go to stderr, and the exit status says them.
        Ok(())
    }

    fn finish(&mut self, _: &Summary) -> io::Result<()> {
        let rules = self.sorted();
        if self.json {
            serde_json::to_writer_pretty(&mut self.out, &rules).map_err(io::Error::other)?;
            writeln!(self.out)?;
            return self.out.flush();
        }
        let count_width = rules.iter().map(|s| s.count.to_string().len()).max();
        let code_width = rules.iter().map(|s| s.code.len()).max();
        for statistic in &rules {
            let mark = match statistic.fixable_count {
                0 => "[ ]",
                n if n == statistic.count => "[*]",
                _ => "[-]",
            };
            writeln!(
                self.out,
                "{:>count$}\t{}\t{mark} {}",
                statistic.count,
                self.style.paint(
                    &format!("{:<code$}", statistic.code, code = code_width.unwrap_or(0)),
                    Tone::Red
                ),
                statistic.name,
                count = count_width.unwrap_or(0),
            )?;
        }
        self.out.flush()
    }
}
