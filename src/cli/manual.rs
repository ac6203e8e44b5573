//! What the man pages say that no flag's help does: the environment variables the
//! program reads (or that users may expect it to read), and what each exit status means.

/// The environment variables the program reads, or that users may expect it to read,
/// with what each does: the ENVIRONMENT section of the man pages.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "When set and not empty, no colour with --color auto (the default); --color always still colours.",
    ),
    (
        "TERM",
        "When dumb, no colour with --color auto: a terminal that understands no escape sequences gets none.",
    ),
    (
        "COLUMNS",
        "The width text reports are laid out for: human and table reports, explain's drawings, the rule catalog. Without it, the terminal's width, or 100 columns when the output is not a terminal.",
    ),
    (
        "GITHUB_WORKSPACE",
        "With -o github, file paths are written relative to this directory (the checkout), as GitHub matches annotations against them.",
    ),
    (
        "GITHUB_STEP_SUMMARY",
        "With -o github, the job summary (a table of the findings) is appended to this file; the table stops short of GitHub's 1 MiB limit and says how many rows it left out.",
    ),
    (
        "GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA",
        "With -o github, link each location in the job summary to its line at the commit under test.",
    ),
    (
        "KUBECONFIG",
        "With --cluster, the kubeconfig files of the kubectl it runs, which reads them from its environment as it always does (--kubeconfig overrides them). Without --cluster, not read: linting files never contacts a cluster and needs no kubeconfig and no credentials.",
    ),
    (
        crate::cluster::kubectl::KUBECTL_VARIABLE,
        "With --cluster, the kubectl to run (a path or a name looked up on PATH; default kubectl). Without --cluster, not read: kubectl is never run.",
    ),
    (
        "PATH",
        "kubectl finds the plugin, kubectl-mesh_lifecycle, and its completion helper, kubectl_complete-mesh_lifecycle, on it; the helper runs the plugin found beside itself, or else on PATH. With --cluster, kubectl itself is found on it, unless KUBECTL names a path.",
    ),
];

/// What each exit status means: the EXIT STATUS section of the man pages.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Nothing at or above --fail-on (default error) was found; for the other commands, success.",
    ),
    (
        "1",
        "lint found findings at or above --fail-on; diff found an added finding at or above --fail-on-new; lsp ended without the editor's shutdown request.",
    ),
    (
        "2",
        "A usage error, an input that could not be read or parsed, a kubectl call of --cluster that failed, timed out or printed too much, a workload not linted under --strict, a file --fix could not write back, or a report that could not be written (everything else is still linted, fixed and reported). These errors win over findings and over --fail-on never. A reader of the report that goes away (| head) does not change the status: every input is still checked.",
    ),
];
