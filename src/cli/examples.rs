//! The `Examples:` section of each subcommand's `--help`, as kubectl's commands have
//! one. Each line that runs the plugin is parsed by `tests/it/cli.rs`, so an example
//! cannot name a flag that is gone.

/// `lint --help`.
pub const LINT: &str = "\
Examples:
  # Lint a directory (kustomizations and Helm charts in it are rendered)
  kubectl mesh-lifecycle lint deploy/

  # kubectl's -f and -o: read job.yaml, print the JSON report on standard output
  kubectl mesh-lifecycle lint -f job.yaml -o json

  # What Helm renders, from standard input, named as its chart
  helm template shop charts/shop | kubectl mesh-lifecycle lint - --stdin-filename charts/shop

  # A CI gate: SARIF in a file, warnings fail, nothing may go unlinted
  kubectl mesh-lifecycle lint deploy/ -o sarif --output-file lint.sarif --fail-on warning --strict

  # The count of findings per rule, and how many --fix fixes (ruff's --statistics)
  kubectl mesh-lifecycle lint deploy/ --statistics

  # Make the safe fixes in place, then report what remains
  kubectl mesh-lifecycle lint --fix deploy/

  # Lint again on every change, until Ctrl-C
  kubectl mesh-lifecycle lint --watch deploy/

  # What a live cluster runs: one Deployment, or every workload of a namespace
  kubectl mesh-lifecycle lint --cluster deploy/web -n shop
  kubectl mesh-lifecycle lint --cluster -n shop
";

/// `diff --help`.
pub const DIFF: &str = "\
Examples:
  # What moving to Istio 1.27 changes
  kubectl mesh-lifecycle diff deploy/ --to istio=1.27

  # What a pull request changes: the merge base and the working tree
  kubectl mesh-lifecycle diff --base origin/main deploy/

  # The same as a pull-request comment
  kubectl mesh-lifecycle diff --base origin/main -o markdown --output-file comment.md

  # What is deployed and the files that would replace it
  kubectl mesh-lifecycle diff --cluster -f deploy/web.yaml
";

/// `explain --help`.
pub const EXPLAIN: &str = "\
Examples:
  # The timeline of every workload of a file
  kubectl mesh-lifecycle explain -f job.yaml

  # One workload, drawn as a picture
  kubectl mesh-lifecycle explain deploy/ --workload web -o svg --output-file web.svg

  # The Deployments only, as JSON
  kubectl mesh-lifecycle explain deploy/ --kind deploy -o json

  # The same workload before and after moving to Linkerd 2.20
  kubectl mesh-lifecycle explain --compare --to linkerd=2.20 deploy/web.yaml
";

/// `rules --help`.
pub const RULES: &str = "\
Examples:
  # The catalog, one row per rule
  kubectl mesh-lifecycle rules

  # One rule's documentation, by id or name
  kubectl mesh-lifecycle rules ML201
  kubectl mesh-lifecycle rules grace-period-exceeded

  # Every rule as JSON
  kubectl mesh-lifecycle rules -o json
";

/// `lsp --help`.
pub const LSP: &str = "\
Examples:
  # What an editor runs (docs/usage.md, \"Editors\", sets it up)
  kubectl-mesh_lifecycle lsp

  # With a cluster profile for every document
  kubectl-mesh_lifecycle lsp --kubernetes-version 1.29 --istio-version 1.22
";

/// `completions --help`.
pub const COMPLETIONS: &str = "\
Examples:
  # bash, for this session
  source <(kubectl-mesh_lifecycle completions bash)

  # zsh, where it looks for completions
  kubectl-mesh_lifecycle completions zsh > \"${fpath[1]}/_kubectl-mesh_lifecycle\"

  # fish
  kubectl-mesh_lifecycle completions fish > ~/.config/fish/completions/kubectl-mesh_lifecycle.fish
";

/// `serve --help`.
pub const SERVE: &str = "\
Examples:
  # The admission webhook with cert-manager's certificate (deploy/admission/ installs it)
  kubectl-mesh_lifecycle serve --admission --tls-cert /tls/tls.crt --tls-key /tls/tls.key

  # Deny what would be an error, with the cluster's profile
  kubectl-mesh_lifecycle serve --admission --tls-cert c.pem --tls-key k.pem --deny-on error
";

/// `mcp --help`.
pub const MCP: &str = "\
Examples:
  # What an assistant runs (docs/mcp.md sets it up)
  kubectl-mesh_lifecycle mcp

  # Reading one repository, and allowed to write the fixes it makes
  kubectl-mesh_lifecycle mcp --root ~/src/platform --allow-writes
";
