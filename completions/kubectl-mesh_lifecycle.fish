# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_mesh_lifecycle_global_optspecs
    string join \n h/help V/version
end

function __fish_kubectl_mesh_lifecycle_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_mesh_lifecycle_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_mesh_lifecycle_using_subcommand
    set -l cmd (__fish_kubectl_mesh_lifecycle_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -f -a "lint" -d 'Lint manifests and report every hazard at its YAML line, with a fix'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -f -a "explain" -d 'Draw the simulated start-up and shutdown timeline of each workload'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -f -a "rules" -d 'List the rules, or print one rule\'s documentation'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s j -l threads -d 'Worker threads (0: one per core)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s n -l namespace -d 'The namespace to read (default: the context\'s, else `default`)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s l -l selector -d 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l kubeconfig -d 'The kubeconfig file to use' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l as -d 'The user to impersonate (kubectl --as)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l as-group -d 'A group to impersonate (kubectl --as-group; repeatable)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l config -d 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l mesh-config -d 'The cluster\'s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio\'s or Linkerd\'s)' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l preset -d 'Defaults of a managed mesh (alibaba-asm)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l kubernetes-version -d 'Kubernetes version of the cluster (default: newest known)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l istio-version -d 'Istio version (unknown by default: classic sidecars assumed)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l linkerd-version -d 'Linkerd version (2.x, version-2.x or edge-yy.m.n)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l proxy-startup -d 'Proxy start-up time, process start to ready (default 2s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l endpoint-propagation -d 'Time until no new requests are routed to a deleted pod (default 5s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l app-shutdown -d 'An app container\'s SIGTERM-to-exit time (default 5s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l longest-request -d 'The longest request the apps serve (unset by default)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l deletion-grace-period -d 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod\'s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l feature-gates -d 'Kubelet feature gates to simulate (SidecarsRestartableDuringPodTermination=true)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s f -l format -d 'Output format' -r -f -a "human\t'Diagnostics with the YAML excerpt and the fix'
table\t'One row per finding'
json\t'The JSON output contract (schemaVersion 1)'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML, for GitLab and other CI test reports'
github\t'GitHub Actions annotations (workflow commands), and the job summary'"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l fail-on -d 'Lowest severity that makes the exit status 1' -r -f -a "error\t'Errors only'
warning\t'Warnings and errors'
info\t'Any finding'
never\t'Exit 0 whatever is found (input errors still exit 2)'"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l select -d 'Run only these rules (ids or names, comma-separated or repeated)' -r -f
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l ignore -d 'Skip these rules (ids or names, comma-separated or repeated)' -r -f
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s o -l output -d 'Write the report to FILE instead of standard output' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l color -d 'When to use colour (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l cluster -d 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s A -l all-namespaces -d 'Read every namespace'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -l no-config -d 'Ignore any .mesh-lifecycle.yaml'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s q -l quiet -d 'Print findings only: no summary line, no notes'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand lint" -s V -l version -d 'Print version'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s j -l threads -d 'Worker threads (0: one per core)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s n -l namespace -d 'The namespace to read (default: the context\'s, else `default`)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s l -l selector -d 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l kubeconfig -d 'The kubeconfig file to use' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l as -d 'The user to impersonate (kubectl --as)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l as-group -d 'A group to impersonate (kubectl --as-group; repeatable)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l config -d 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l mesh-config -d 'The cluster\'s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio\'s or Linkerd\'s)' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l preset -d 'Defaults of a managed mesh (alibaba-asm)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l kubernetes-version -d 'Kubernetes version of the cluster (default: newest known)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l istio-version -d 'Istio version (unknown by default: classic sidecars assumed)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l linkerd-version -d 'Linkerd version (2.x, version-2.x or edge-yy.m.n)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l proxy-startup -d 'Proxy start-up time, process start to ready (default 2s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l endpoint-propagation -d 'Time until no new requests are routed to a deleted pod (default 5s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l app-shutdown -d 'An app container\'s SIGTERM-to-exit time (default 5s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l longest-request -d 'The longest request the apps serve (unset by default)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l deletion-grace-period -d 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod\'s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l feature-gates -d 'Kubelet feature gates to simulate (SidecarsRestartableDuringPodTermination=true)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s f -l format -d 'Output format' -r -f -a "text\t'The timeline drawn in the terminal'
json\t'Plan, assumptions and events'
svg\t'A picture of the timeline'"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l workload -d 'Only workloads with this name' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l kind -d 'Only workloads of this kind (Deployment, Job, ...)' -r
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s o -l output -d 'Write the report to FILE instead of standard output' -r -F
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l color -d 'When to use colour (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l cluster -d 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s A -l all-namespaces -d 'Read every namespace'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -l no-config -d 'Ignore any .mesh-lifecycle.yaml'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand rules" -s f -l format -d 'Output format' -r -f -a "table\t'One row per rule, or the rule\'s doc as text'
json\t'Ids, names, severities, groups and docs'
markdown\t'The docs as Markdown, as in docs/rules'"
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand rules" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand rules" -s V -l version -d 'Print version'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand completions" -s h -l help -d 'Print help'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand completions" -s V -l version -d 'Print version'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand help; and not __fish_seen_subcommand_from lint explain rules completions help" -f -a "lint" -d 'Lint manifests and report every hazard at its YAML line, with a fix'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand help; and not __fish_seen_subcommand_from lint explain rules completions help" -f -a "explain" -d 'Draw the simulated start-up and shutdown timeline of each workload'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand help; and not __fish_seen_subcommand_from lint explain rules completions help" -f -a "rules" -d 'List the rules, or print one rule\'s documentation'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand help; and not __fish_seen_subcommand_from lint explain rules completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c kubectl-mesh_lifecycle -n "__fish_kubectl_mesh_lifecycle_using_subcommand help; and not __fish_seen_subcommand_from lint explain rules completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
