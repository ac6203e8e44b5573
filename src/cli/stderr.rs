//! What the command line writes to standard error: diagnostics, a document's input
//! errors and notes, usage errors.

/// Writes to standard error. A closed standard error (`lint … 2>&1 | head -1`) loses the
/// text but never the exit status (`eprint!` would panic). On a terminal, a `note:` line
/// is wrapped at its width, never inside a word (off a terminal it stays one line, for
/// logs and grep).
pub(super) fn diagnostic(text: &str) {
    use std::io::{IsTerminal, Write};
    let stderr = std::io::stderr();
    let wrapped;
    let text = if stderr.is_terminal() && text.lines().any(|line| line.starts_with("note: ")) {
        wrapped = wrap_notes(
            text,
            super::output::width(Some(super::output::Stream::Stderr)),
        );
        &wrapped
    } else {
        text
    };
    let _ = stderr.lock().write_all(text.as_bytes());
}

/// `text` with each line that starts with `note: ` wrapped at `width`, its
/// continuation lines indented past `note: `.
fn wrap_notes(text: &str, width: usize) -> String {
    let width = width.max(crate::report::style::MIN_WIDTH);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if body.starts_with("note: ") && body.chars().count() > width {
            out.push_str(&crate::report::wrap::wrap(body, width, "", "      "));
            out.push_str(end);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Prints what stood in the way of reading a document: its input errors at their place,
/// then its notes (a workload not linted, and why).
pub(super) fn document_problems(
    report: &crate::pipeline::DocumentReport,
    style: crate::report::human::Style,
) {
    for error in &report.errors {
        diagnostic(&crate::report::human::render_input_error(error, style));
    }
    for note in &report.notes {
        diagnostic(&format!(
            "note: {}\n",
            crate::escape::controls(&note.error.to_string())
        ));
    }
}

/// Errors in the profile (config file, mesh config, flags): printed at their place, exit 2.
pub(super) fn profile_errors(
    errors: &[crate::load::InputError],
    style: crate::report::human::Style,
) -> std::io::Result<u8> {
    for error in errors {
        diagnostic(&crate::report::human::render_input_error(error, style));
    }
    Ok(2)
}

/// A usage error in an argument clap could not check: printed like clap's, exit 2.
pub(super) fn usage_error(message: impl std::fmt::Display) -> std::io::Result<u8> {
    diagnostic(&format!(
        "error: {message}\n\nFor more information, try '--help'.\n"
    ));
    Ok(2)
}
