
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-mesh_lifecycle' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-mesh_lifecycle'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-mesh_lifecycle' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Lint manifests and report every hazard at its YAML line, with a fix')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what changes between two sides of the same workloads: two profiles (--to istio=1.27), a git revision and the working tree (--base REF), two rendered trees (--base-dir), or what is deployed and the files that would replace it (--cluster)')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Draw the simulated start-up and shutdown timeline of each workload')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the rules, or print one rule''s documentation')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server: findings, quick fixes and timelines in the editor')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run a server where manifests land: with --admission, a validating admission webhook that lints every Pod and workload the API server admits')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Run a Model Context Protocol server on standard input and output, for assistants: tools lint, explain, rules, diff and fix')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-mesh_lifecycle;lint' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave paths matching GLOB out of directory searches (gitignore syntax, relative to the working directory; repeatable). Paths named on the command line are read')
            [CompletionResult]::new('--render-timeout', '--render-timeout', [CompletionResultType]::ParameterName, 'How long each call of kubectl kustomize, helm template (and, for diff --base, git) may take: 30s, 2m, or 0 for no limit. A call still running then is stopped with all it started, and its directory is an input error. Also `renderTimeout` in .mesh-lifecycle.yaml; default 60s')
            [CompletionResult]::new('--stdin-filename', '--stdin-filename', [CompletionResultType]::ParameterName, 'The path that standard input stands for, to name it in every report (SARIF, GitHub annotations, JUnit, JSON, human)')
            [CompletionResult]::new('--max-input-size', '--max-input-size', [CompletionResultType]::ParameterName, 'The most read from one input: a file, standard input, a pipe, an object read with --cluster')
            [CompletionResult]::new('--max-document-size', '--max-document-size', [CompletionResultType]::ParameterName, 'The largest document parsed')
            [CompletionResult]::new('--max-line-length', '--max-line-length', [CompletionResultType]::ParameterName, 'The longest line read')
            [CompletionResult]::new('--max-config-size', '--max-config-size', [CompletionResultType]::ParameterName, 'The largest config or mesh-config file read')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'The kubeconfig file to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate (kubectl --as)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate (kubectl --as-group; repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long each request to the API server may take (kubectl''s own flag, passed through): 30s, 2m, or 0 for no limit. A kubectl call still running at twice this is stopped')
            [CompletionResult]::new('--cluster-timeout', '--cluster-timeout', [CompletionResultType]::ParameterName, 'How long the whole read of the cluster may take (0: no limit); then every kubectl call still running is stopped, and the run exits 2')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (kubectl''s own flag; 0 reads each list in one request): memory holds a page, not the cluster')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)')
            [CompletionResult]::new('--mesh-config', '--mesh-config', [CompletionResultType]::ParameterName, 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)')
            [CompletionResult]::new('--preset', '--preset', [CompletionResultType]::ParameterName, 'Defaults of a managed mesh (alibaba-asm)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'Kubernetes version of the cluster (default: newest known)')
            [CompletionResult]::new('--node-version', '--node-version', [CompletionResultType]::ParameterName, 'The oldest kubelet version among the nodes, which Istio''s native-sidecar `auto` mode looks at (default: the Kubernetes version)')
            [CompletionResult]::new('--mesh-version', '--mesh-version', [CompletionResultType]::ParameterName, 'A mesh''s release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr, cloud-sql-proxy; repeat it or separate with commas (unknown by default: each mesh read as its releases before native sidecars)')
            [CompletionResult]::new('--istio-version', '--istio-version', [CompletionResultType]::ParameterName, 'Istio version, the same as --mesh-version istio=VERSION')
            [CompletionResult]::new('--linkerd-version', '--linkerd-version', [CompletionResultType]::ParameterName, 'Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version linkerd=VERSION')
            [CompletionResult]::new('--proxy-startup', '--proxy-startup', [CompletionResultType]::ParameterName, 'Proxy start-up time, process start to ready (default 2s)')
            [CompletionResult]::new('--endpoint-propagation', '--endpoint-propagation', [CompletionResultType]::ParameterName, 'Time until no new requests are routed to a deleted pod (default 5s)')
            [CompletionResult]::new('--app-shutdown', '--app-shutdown', [CompletionResultType]::ParameterName, 'An app container''s SIGTERM-to-exit time (default 5s)')
            [CompletionResult]::new('--longest-request', '--longest-request', [CompletionResultType]::ParameterName, 'The longest request the apps serve (unset by default)')
            [CompletionResult]::new('--deletion-grace-period', '--deletion-grace-period', [CompletionResultType]::ParameterName, 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Lowest severity that makes the exit status 1')
            [CompletionResult]::new('--select', '--select', [CompletionResultType]::ParameterName, 'Run only these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Skip these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--assumed-losses', '--assumed-losses', [CompletionResultType]::ParameterName, 'How a finding that rests on a premise the input does not prove counts: `lowered` as its rule''s doc states (default), or `full`, at the rule''s severity')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Report only the findings the baseline FILE does not hold: the ones it holds are counted in the summary and never fail the run, and its entries that match no finding any more are named')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Record every finding of this run in FILE as the baseline (sorted, one per line, by line-independent fingerprint) and exit 0; 2 without writing when an input could not be read')
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output (-o picks the format)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto colours a terminal unless NO_COLOR is set or TERM is dumb; always and never override them')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Search directories without ignoring anything: hidden files, .gitignore, .ignore and git''s exclude files (--exclude still applies)')
            [CompletionResult]::new('--no-render', '--no-render', [CompletionResultType]::ParameterName, 'Read a directory holding a kustomization or a Helm chart as files, rather than lint what kubectl kustomize or helm template renders for it')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore any .mesh-lifecycle.yaml')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print findings only: no summary line, and no notes but those that say a workload was not linted')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print findings only: no summary line, and no notes but those that say a workload was not linted')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Fail (exit 2) when a workload may have gone unlinted: a kind without containers at its pod''s path, an object of a kind the linter does not read that holds a pod, a Rollout whose template is elsewhere, a kind the cluster does not let it list, no workload at all, a Helm chart or kustomization whose tool is not installed. Also `strict: true` in .mesh-lifecycle.yaml')
            [CompletionResult]::new('--show-infos', '--show-infos', [CompletionResultType]::ParameterName, 'Print each info in full, like errors and warnings (the human format otherwise gives one line per rule; --fail-on info implies it)')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Apply the safe fixes in place, then report what remains (standard input: print the fixed stream, and report on stderr or to --output-file)')
            [CompletionResult]::new('--unsafe-fixes', '--unsafe-fixes', [CompletionResultType]::ParameterName, 'Also apply the unsafe fixes (a longer grace period, a different stop command): review them. Without --fix, marks them fixable ([*])')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print a unified diff of what --fix would change (to standard output, or --output-file), write nothing; exit 1 when there is something to change')
            [CompletionResult]::new('--no-prefix', '--no-prefix', [CompletionResultType]::ParameterName, 'With --diff, name the files in the headers without git''s a/ and b/ prefixes, so that `patch -p0` applies the diff (without it: `patch -p1` or `git apply`)')
            [CompletionResult]::new('--show-baselined', '--show-baselined', [CompletionResultType]::ParameterName, 'List the findings the baseline holds too, marked as such (human, JSON and SARIF reports)')
            [CompletionResult]::new('--fix-only', '--fix-only', [CompletionResultType]::ParameterName, 'Apply the fixes as --fix does, but report nothing of what remains: exit 0, unless an input could not be read or written (2) or --exit-non-zero-on-fix')
            [CompletionResult]::new('--show-fixes', '--show-fixes', [CompletionResultType]::ParameterName, 'With --fix, list the fixes made by file and rule; without it, show each finding''s fix as a diff under it (human format)')
            [CompletionResult]::new('--exit-non-zero-on-fix', '--exit-non-zero-on-fix', [CompletionResultType]::ParameterName, 'Exit 1 when --fix made a fix, even if no finding remains')
            [CompletionResult]::new('--statistics', '--statistics', [CompletionResultType]::ParameterName, 'Print how many findings each rule made, and how many of them --fix fixes ([*] all, [-] some, [ ] none), instead of the findings (-o json: the same as JSON)')
            [CompletionResult]::new('--exit-zero', '--exit-zero', [CompletionResultType]::ParameterName, 'Exit 0 whatever is found, as --fail-on never does (an input that could not be read, or a workload --strict refuses, still exits 2)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Lint again whenever a file or directory given, or a config file in force, changes: the terminal is cleared and the report printed anew, until Ctrl-C')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;diff' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave paths matching GLOB out of directory searches (gitignore syntax, relative to the working directory; repeatable). Paths named on the command line are read')
            [CompletionResult]::new('--render-timeout', '--render-timeout', [CompletionResultType]::ParameterName, 'How long each call of kubectl kustomize, helm template (and, for diff --base, git) may take: 30s, 2m, or 0 for no limit. A call still running then is stopped with all it started, and its directory is an input error. Also `renderTimeout` in .mesh-lifecycle.yaml; default 60s')
            [CompletionResult]::new('--stdin-filename', '--stdin-filename', [CompletionResultType]::ParameterName, 'The path that standard input stands for, to name it in every report (SARIF, GitHub annotations, JUnit, JSON, human)')
            [CompletionResult]::new('--max-input-size', '--max-input-size', [CompletionResultType]::ParameterName, 'The most read from one input: a file, standard input, a pipe, an object read with --cluster')
            [CompletionResult]::new('--max-document-size', '--max-document-size', [CompletionResultType]::ParameterName, 'The largest document parsed')
            [CompletionResult]::new('--max-line-length', '--max-line-length', [CompletionResultType]::ParameterName, 'The longest line read')
            [CompletionResult]::new('--max-config-size', '--max-config-size', [CompletionResultType]::ParameterName, 'The largest config or mesh-config file read')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'The kubeconfig file to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate (kubectl --as)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate (kubectl --as-group; repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long each request to the API server may take (kubectl''s own flag, passed through): 30s, 2m, or 0 for no limit. A kubectl call still running at twice this is stopped')
            [CompletionResult]::new('--cluster-timeout', '--cluster-timeout', [CompletionResultType]::ParameterName, 'How long the whole read of the cluster may take (0: no limit); then every kubectl call still running is stopped, and the run exits 2')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (kubectl''s own flag; 0 reads each list in one request): memory holds a page, not the cluster')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)')
            [CompletionResult]::new('--mesh-config', '--mesh-config', [CompletionResultType]::ParameterName, 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)')
            [CompletionResult]::new('--preset', '--preset', [CompletionResultType]::ParameterName, 'Defaults of a managed mesh (alibaba-asm)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'Kubernetes version of the cluster (default: newest known)')
            [CompletionResult]::new('--node-version', '--node-version', [CompletionResultType]::ParameterName, 'The oldest kubelet version among the nodes, which Istio''s native-sidecar `auto` mode looks at (default: the Kubernetes version)')
            [CompletionResult]::new('--mesh-version', '--mesh-version', [CompletionResultType]::ParameterName, 'A mesh''s release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr, cloud-sql-proxy; repeat it or separate with commas (unknown by default: each mesh read as its releases before native sidecars)')
            [CompletionResult]::new('--istio-version', '--istio-version', [CompletionResultType]::ParameterName, 'Istio version, the same as --mesh-version istio=VERSION')
            [CompletionResult]::new('--linkerd-version', '--linkerd-version', [CompletionResultType]::ParameterName, 'Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version linkerd=VERSION')
            [CompletionResult]::new('--proxy-startup', '--proxy-startup', [CompletionResultType]::ParameterName, 'Proxy start-up time, process start to ready (default 2s)')
            [CompletionResult]::new('--endpoint-propagation', '--endpoint-propagation', [CompletionResultType]::ParameterName, 'Time until no new requests are routed to a deleted pod (default 5s)')
            [CompletionResult]::new('--app-shutdown', '--app-shutdown', [CompletionResultType]::ParameterName, 'An app container''s SIGTERM-to-exit time (default 5s)')
            [CompletionResult]::new('--longest-request', '--longest-request', [CompletionResultType]::ParameterName, 'The longest request the apps serve (unset by default)')
            [CompletionResult]::new('--deletion-grace-period', '--deletion-grace-period', [CompletionResultType]::ParameterName, 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Change today''s profile for the first side: KEY=VALUE, repeatable (kubernetes, nodes, istio, linkerd, preset, mesh-config, or any setting of the config file by its dotted path: istio.nativeSidecars=auto, scenario.appShutdown=20s)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Change today''s profile for the second side: KEY=VALUE, repeatable (as --from)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'The first side is the manifests at git revision REF (HEAD~1, origin/main), read with git; renamed files are followed and deleted ones compared too')
            [CompletionResult]::new('--base-dir', '--base-dir', [CompletionResultType]::ParameterName, 'The first side is the manifests under PATH (a directory or file: `helm template` output of the other chart version), matched to the one PATH given by their paths below it')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--fail-on-new', '--fail-on-new', [CompletionResultType]::ParameterName, 'Lowest severity of an added finding that makes the exit status 1 (removed findings never do)')
            [CompletionResult]::new('--select', '--select', [CompletionResultType]::ParameterName, 'Run only these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Skip these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--assumed-losses', '--assumed-losses', [CompletionResultType]::ParameterName, 'How a finding that rests on a premise the input does not prove counts: `lowered` as its rule''s doc states (default), or `full`, at the rule''s severity')
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output (-o picks the format)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto colours a terminal unless NO_COLOR is set or TERM is dumb; always and never override them')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Search directories without ignoring anything: hidden files, .gitignore, .ignore and git''s exclude files (--exclude still applies)')
            [CompletionResult]::new('--no-render', '--no-render', [CompletionResultType]::ParameterName, 'Read a directory holding a kustomization or a Helm chart as files, rather than lint what kubectl kustomize or helm template renders for it')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore any .mesh-lifecycle.yaml')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print the workloads only: no heading, no summary line, no notes')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print the workloads only: no heading, no summary line, no notes')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'Compare what is deployed (the workloads, their running pods and the environment, read with kubectl from the current context) with the files given, which would replace it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;explain' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads (0: one per core; at most 1024). Reports are the same whatever the count: documents are analysed in parallel and reported in input order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'A file or directory to read, as kubectl''s -f (repeatable; `-` reads standard input): the same as naming it as an argument')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave paths matching GLOB out of directory searches (gitignore syntax, relative to the working directory; repeatable). Paths named on the command line are read')
            [CompletionResult]::new('--render-timeout', '--render-timeout', [CompletionResultType]::ParameterName, 'How long each call of kubectl kustomize, helm template (and, for diff --base, git) may take: 30s, 2m, or 0 for no limit. A call still running then is stopped with all it started, and its directory is an input error. Also `renderTimeout` in .mesh-lifecycle.yaml; default 60s')
            [CompletionResult]::new('--stdin-filename', '--stdin-filename', [CompletionResultType]::ParameterName, 'The path that standard input stands for, to name it in every report (SARIF, GitHub annotations, JUnit, JSON, human)')
            [CompletionResult]::new('--max-input-size', '--max-input-size', [CompletionResultType]::ParameterName, 'The most read from one input: a file, standard input, a pipe, an object read with --cluster')
            [CompletionResult]::new('--max-document-size', '--max-document-size', [CompletionResultType]::ParameterName, 'The largest document parsed')
            [CompletionResult]::new('--max-line-length', '--max-line-length', [CompletionResultType]::ParameterName, 'The longest line read')
            [CompletionResult]::new('--max-config-size', '--max-config-size', [CompletionResultType]::ParameterName, 'The largest config or mesh-config file read')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace to read (default: the context''s, else `default`)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'The kubeconfig file to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate (kubectl --as)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate (kubectl --as-group; repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long each request to the API server may take (kubectl''s own flag, passed through): 30s, 2m, or 0 for no limit. A kubectl call still running at twice this is stopped')
            [CompletionResult]::new('--cluster-timeout', '--cluster-timeout', [CompletionResultType]::ParameterName, 'How long the whole read of the cluster may take (0: no limit); then every kubectl call still running is stopped, and the run exits 2')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (kubectl''s own flag; 0 reads each list in one request): memory holds a page, not the cluster')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)')
            [CompletionResult]::new('--mesh-config', '--mesh-config', [CompletionResultType]::ParameterName, 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)')
            [CompletionResult]::new('--preset', '--preset', [CompletionResultType]::ParameterName, 'Defaults of a managed mesh (alibaba-asm)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'Kubernetes version of the cluster (default: newest known)')
            [CompletionResult]::new('--node-version', '--node-version', [CompletionResultType]::ParameterName, 'The oldest kubelet version among the nodes, which Istio''s native-sidecar `auto` mode looks at (default: the Kubernetes version)')
            [CompletionResult]::new('--mesh-version', '--mesh-version', [CompletionResultType]::ParameterName, 'A mesh''s release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr, cloud-sql-proxy; repeat it or separate with commas (unknown by default: each mesh read as its releases before native sidecars)')
            [CompletionResult]::new('--istio-version', '--istio-version', [CompletionResultType]::ParameterName, 'Istio version, the same as --mesh-version istio=VERSION')
            [CompletionResult]::new('--linkerd-version', '--linkerd-version', [CompletionResultType]::ParameterName, 'Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version linkerd=VERSION')
            [CompletionResult]::new('--proxy-startup', '--proxy-startup', [CompletionResultType]::ParameterName, 'Proxy start-up time, process start to ready (default 2s)')
            [CompletionResult]::new('--endpoint-propagation', '--endpoint-propagation', [CompletionResultType]::ParameterName, 'Time until no new requests are routed to a deleted pod (default 5s)')
            [CompletionResult]::new('--app-shutdown', '--app-shutdown', [CompletionResultType]::ParameterName, 'An app container''s SIGTERM-to-exit time (default 5s)')
            [CompletionResult]::new('--longest-request', '--longest-request', [CompletionResultType]::ParameterName, 'The longest request the apps serve (unset by default)')
            [CompletionResult]::new('--deletion-grace-period', '--deletion-grace-period', [CompletionResultType]::ParameterName, 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format (the report file is --output-file)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Change today''s profile for the first side: KEY=VALUE, repeatable (kubernetes, nodes, istio, linkerd, preset, mesh-config, or any setting of the config file by its dotted path: istio.nativeSidecars=auto, scenario.appShutdown=20s)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Change today''s profile for the second side: KEY=VALUE, repeatable (as --from)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'The first side is the manifests at git revision REF (HEAD~1, origin/main), read with git; renamed files are followed and deleted ones compared too')
            [CompletionResult]::new('--base-dir', '--base-dir', [CompletionResultType]::ParameterName, 'The first side is the manifests under PATH (a directory or file: `helm template` output of the other chart version), matched to the one PATH given by their paths below it')
            [CompletionResult]::new('--workload', '--workload', [CompletionResultType]::ParameterName, 'Only workloads with this name (exit 2 when none has it)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only workloads of this kind (Deployment, Job, ...)')
            [CompletionResult]::new('--output-file', '--output-file', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output (-o picks the format)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto colours a terminal unless NO_COLOR is set or TERM is dumb; always and never override them')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Search directories without ignoring anything: hidden files, .gitignore, .ignore and git''s exclude files (--exclude still applies)')
            [CompletionResult]::new('--no-render', '--no-render', [CompletionResultType]::ParameterName, 'Read a directory holding a kustomization or a Helm chart as files, rather than lint what kubectl kustomize or helm template renders for it')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Read every namespace')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore any .mesh-lifecycle.yaml')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Draw each workload''s two timelines one above the other: the sides are given as for `diff` (--to, --from, --base, --base-dir, --cluster with files)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;rules' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format, as kubectl''s -o and ruff''s --output-format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour: auto colours a terminal unless NO_COLOR is set or TERM is dumb; always and never override them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;lsp' {
            [CompletionResult]::new('--select', '--select', [CompletionResultType]::ParameterName, 'Run only these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Skip these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--assumed-losses', '--assumed-losses', [CompletionResultType]::ParameterName, 'How a finding that rests on a premise the input does not prove counts: `lowered` as its rule''s doc states (default), or `full`, at the rule''s severity')
            [CompletionResult]::new('--mesh-config', '--mesh-config', [CompletionResultType]::ParameterName, 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)')
            [CompletionResult]::new('--preset', '--preset', [CompletionResultType]::ParameterName, 'Defaults of a managed mesh (alibaba-asm)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'Kubernetes version of the cluster (default: newest known)')
            [CompletionResult]::new('--node-version', '--node-version', [CompletionResultType]::ParameterName, 'The oldest kubelet version among the nodes, which Istio''s native-sidecar `auto` mode looks at (default: the Kubernetes version)')
            [CompletionResult]::new('--mesh-version', '--mesh-version', [CompletionResultType]::ParameterName, 'A mesh''s release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr, cloud-sql-proxy; repeat it or separate with commas (unknown by default: each mesh read as its releases before native sidecars)')
            [CompletionResult]::new('--istio-version', '--istio-version', [CompletionResultType]::ParameterName, 'Istio version, the same as --mesh-version istio=VERSION')
            [CompletionResult]::new('--linkerd-version', '--linkerd-version', [CompletionResultType]::ParameterName, 'Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version linkerd=VERSION')
            [CompletionResult]::new('--proxy-startup', '--proxy-startup', [CompletionResultType]::ParameterName, 'Proxy start-up time, process start to ready (default 2s)')
            [CompletionResult]::new('--endpoint-propagation', '--endpoint-propagation', [CompletionResultType]::ParameterName, 'Time until no new requests are routed to a deleted pod (default 5s)')
            [CompletionResult]::new('--app-shutdown', '--app-shutdown', [CompletionResultType]::ParameterName, 'An app container''s SIGTERM-to-exit time (default 5s)')
            [CompletionResult]::new('--longest-request', '--longest-request', [CompletionResultType]::ParameterName, 'The longest request the apps serve (unset by default)')
            [CompletionResult]::new('--deletion-grace-period', '--deletion-grace-period', [CompletionResultType]::ParameterName, 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file for every document (default: each document''s nearest .mesh-lifecycle.yaml, at or above its directory)')
            [CompletionResult]::new('--stdio', '--stdio', [CompletionResultType]::ParameterName, 'Talk over standard input and output, the only transport (accepted because some clients pass it)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore any .mesh-lifecycle.yaml')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address and port to listen on (port 0: any free port, printed at start)')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'The PEM certificate chain to serve (read again when it changes)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The PEM private key of the certificate (read again when it changes)')
            [CompletionResult]::new('--warn-on', '--warn-on', [CompletionResultType]::ParameterName, 'The lowest severity of a finding that is worth a warning (infos are rarely worth a line on every `kubectl apply`)')
            [CompletionResult]::new('--deny-on', '--deny-on', [CompletionResultType]::ParameterName, 'Deny objects with findings at or above this severity, the findings as the reason (default: admit every object, the findings as warnings)')
            [CompletionResult]::new('--review-timeout', '--review-timeout', [CompletionResultType]::ParameterName, 'The most time one review takes; past it the object is admitted with a warning that it was not checked (at most 9s: the API server waits 10 s at most)')
            [CompletionResult]::new('--max-review-size', '--max-review-size', [CompletionResultType]::ParameterName, 'The largest review read (the API server stores objects up to 1.5 MiB; an update''s review holds the old object too)')
            [CompletionResult]::new('--max-in-flight', '--max-in-flight', [CompletionResultType]::ParameterName, 'The most reviews held at once; more are answered 503 at once (the API server then applies the webhook''s failurePolicy)')
            [CompletionResult]::new('--tls-reload-interval', '--tls-reload-interval', [CompletionResultType]::ParameterName, 'How often the certificate and key are read again')
            [CompletionResult]::new('--shutdown-delay', '--shutdown-delay', [CompletionResultType]::ParameterName, 'How long the server answers after SIGTERM, reporting not ready, so that the Service stops sending reviews before it stops listening')
            [CompletionResult]::new('--select', '--select', [CompletionResultType]::ParameterName, 'Run only these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Skip these rules (ids or names, comma-separated or repeated)')
            [CompletionResult]::new('--assumed-losses', '--assumed-losses', [CompletionResultType]::ParameterName, 'How a finding that rests on a premise the input does not prove counts: `lowered` as its rule''s doc states (default), or `full`, at the rule''s severity')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)')
            [CompletionResult]::new('--mesh-config', '--mesh-config', [CompletionResultType]::ParameterName, 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)')
            [CompletionResult]::new('--preset', '--preset', [CompletionResultType]::ParameterName, 'Defaults of a managed mesh (alibaba-asm)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'Kubernetes version of the cluster (default: newest known)')
            [CompletionResult]::new('--node-version', '--node-version', [CompletionResultType]::ParameterName, 'The oldest kubelet version among the nodes, which Istio''s native-sidecar `auto` mode looks at (default: the Kubernetes version)')
            [CompletionResult]::new('--mesh-version', '--mesh-version', [CompletionResultType]::ParameterName, 'A mesh''s release, MESH one of istio, linkerd, kuma, consul (consul-k8s), dapr, cloud-sql-proxy; repeat it or separate with commas (unknown by default: each mesh read as its releases before native sidecars)')
            [CompletionResult]::new('--istio-version', '--istio-version', [CompletionResultType]::ParameterName, 'Istio version, the same as --mesh-version istio=VERSION')
            [CompletionResult]::new('--linkerd-version', '--linkerd-version', [CompletionResultType]::ParameterName, 'Linkerd version (2.x, version-2.x or edge-yy.m.n), the same as --mesh-version linkerd=VERSION')
            [CompletionResult]::new('--proxy-startup', '--proxy-startup', [CompletionResultType]::ParameterName, 'Proxy start-up time, process start to ready (default 2s)')
            [CompletionResult]::new('--endpoint-propagation', '--endpoint-propagation', [CompletionResultType]::ParameterName, 'Time until no new requests are routed to a deleted pod (default 5s)')
            [CompletionResult]::new('--app-shutdown', '--app-shutdown', [CompletionResultType]::ParameterName, 'An app container''s SIGTERM-to-exit time (default 5s)')
            [CompletionResult]::new('--longest-request', '--longest-request', [CompletionResultType]::ParameterName, 'The longest request the apps serve (unset by default)')
            [CompletionResult]::new('--deletion-grace-period', '--deletion-grace-period', [CompletionResultType]::ParameterName, 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates to simulate (SidecarsRestartableDuringPodTermination=true, ContainerRestartRules=false)')
            [CompletionResult]::new('--admission', '--admission', [CompletionResultType]::ParameterName, 'Serve a validating admission webhook (`admission.k8s.io/v1` AdmissionReview at /validate; /healthz, /readyz and /metrics beside it)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore any .mesh-lifecycle.yaml')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;mcp' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The directory relative paths are read from, and the only one --allow-writes writes under (default: the working directory; clients such as Claude Desktop start servers in no directory of yours)')
            [CompletionResult]::new('--tool-timeout', '--tool-timeout', [CompletionResultType]::ParameterName, 'The most time one tool call takes')
            [CompletionResult]::new('--allow-writes', '--allow-writes', [CompletionResultType]::ParameterName, 'Let the `fix` tool write fixed files back when a call asks it to, and only files under the working directory (by default it only returns the fixed text)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mesh_lifecycle;help' {
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Lint manifests and report every hazard at its YAML line, with a fix')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what changes between two sides of the same workloads: two profiles (--to istio=1.27), a git revision and the working tree (--base REF), two rendered trees (--base-dir), or what is deployed and the files that would replace it (--cluster)')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Draw the simulated start-up and shutdown timeline of each workload')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List the rules, or print one rule''s documentation')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server: findings, quick fixes and timelines in the editor')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run a server where manifests land: with --admission, a validating admission webhook that lints every Pod and workload the API server admits')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Run a Model Context Protocol server on standard input and output, for assistants: tools lint, explain, rules, diff and fix')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-mesh_lifecycle;help;lint' {
            break
        }
        'kubectl-mesh_lifecycle;help;diff' {
            break
        }
        'kubectl-mesh_lifecycle;help;explain' {
            break
        }
        'kubectl-mesh_lifecycle;help;rules' {
            break
        }
        'kubectl-mesh_lifecycle;help;lsp' {
            break
        }
        'kubectl-mesh_lifecycle;help;serve' {
            break
        }
        'kubectl-mesh_lifecycle;help;mcp' {
            break
        }
        'kubectl-mesh_lifecycle;help;completions' {
            break
        }
        'kubectl-mesh_lifecycle;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
