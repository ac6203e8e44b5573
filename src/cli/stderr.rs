//! What the command line writes to standard error: diagnostics, a document's input
//! errors and notes, usage errors.

/// Writes to standard error. A closed standard error (`lint … 2>&1 | head -1`) loses the
/// text but never the exit status (`eprint!` would panic).
pub(super) fn diagnostic(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
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
