
use builtin;
use str;

set edit:completion:arg-completer[kubectl-mesh_lifecycle] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kubectl-mesh_lifecycle'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kubectl-mesh_lifecycle'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand lint 'Lint manifests and report every hazard at its YAML line, with a fix'
            cand explain 'Draw the simulated start-up and shutdown timeline of each workload'
            cand rules 'List the rules, or print one rule''s documentation'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-mesh_lifecycle;lint'= {
            cand -j 'Worker threads (0: one per core)'
            cand --threads 'Worker threads (0: one per core)'
            cand -n 'The namespace to read (default: the context''s, else `default`)'
            cand --namespace 'The namespace to read (default: the context''s, else `default`)'
            cand -l 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them'
            cand --selector 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them'
            cand --context 'The kubeconfig context to use'
            cand --kubeconfig 'The kubeconfig file to use'
            cand --as 'The user to impersonate (kubectl --as)'
            cand --as-group 'A group to impersonate (kubectl --as-group; repeatable)'
            cand --config 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)'
            cand --mesh-config 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)'
            cand --preset 'Defaults of a managed mesh (alibaba-asm)'
            cand --kubernetes-version 'Kubernetes version of the cluster (default: newest known)'
            cand --istio-version 'Istio version (unknown by default: classic sidecars assumed)'
            cand --linkerd-version 'Linkerd version (2.x, version-2.x or edge-yy.m.n)'
            cand --proxy-startup 'Proxy start-up time, process start to ready (default 2s)'
            cand --endpoint-propagation 'Time until no new requests are routed to a deleted pod (default 5s)'
            cand --app-shutdown 'An app container''s SIGTERM-to-exit time (default 5s)'
            cand --longest-request 'The longest request the apps serve (unset by default)'
            cand --deletion-grace-period 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)'
            cand --feature-gates 'Kubelet feature gates to simulate (SidecarsRestartableDuringPodTermination=true)'
            cand -f 'Output format'
            cand --format 'Output format'
            cand --fail-on 'Lowest severity that makes the exit status 1'
            cand --select 'Run only these rules (ids or names, comma-separated or repeated)'
            cand --ignore 'Skip these rules (ids or names, comma-separated or repeated)'
            cand -o 'Write the report to FILE instead of standard output'
            cand --output 'Write the report to FILE instead of standard output'
            cand --color 'When to use colour (NO_COLOR is honoured)'
            cand --cluster 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths'
            cand -A 'Read every namespace'
            cand --all-namespaces 'Read every namespace'
            cand --no-config 'Ignore any .mesh-lifecycle.yaml'
            cand -q 'Print findings only: no summary line, no notes'
            cand --quiet 'Print findings only: no summary line, no notes'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mesh_lifecycle;explain'= {
            cand -j 'Worker threads (0: one per core)'
            cand --threads 'Worker threads (0: one per core)'
            cand -n 'The namespace to read (default: the context''s, else `default`)'
            cand --namespace 'The namespace to read (default: the context''s, else `default`)'
            cand -l 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them'
            cand --selector 'Only objects whose labels match (`app=web,tier!=db`), as kubectl selects them'
            cand --context 'The kubeconfig context to use'
            cand --kubeconfig 'The kubeconfig file to use'
            cand --as 'The user to impersonate (kubectl --as)'
            cand --as-group 'A group to impersonate (kubectl --as-group; repeatable)'
            cand --config 'The config file (default: the nearest .mesh-lifecycle.yaml at or above the working directory)'
            cand --mesh-config 'The cluster''s mesh configuration: an Istio `istio` ConfigMap, an IstioOperator, or Helm values (Istio''s or Linkerd''s)'
            cand --preset 'Defaults of a managed mesh (alibaba-asm)'
            cand --kubernetes-version 'Kubernetes version of the cluster (default: newest known)'
            cand --istio-version 'Istio version (unknown by default: classic sidecars assumed)'
            cand --linkerd-version 'Linkerd version (2.x, version-2.x or edge-yy.m.n)'
            cand --proxy-startup 'Proxy start-up time, process start to ready (default 2s)'
            cand --endpoint-propagation 'Time until no new requests are routed to a deleted pod (default 5s)'
            cand --app-shutdown 'An app container''s SIGTERM-to-exit time (default 5s)'
            cand --longest-request 'The longest request the apps serve (unset by default)'
            cand --deletion-grace-period 'Simulate a deletion with this grace period (`kubectl delete --grace-period`), which overrides the pod''s terminationGracePeriodSeconds; 0 is taken as 1, as kubectl sends it without --force (the kubelet gives a pod at least 1 s)'
            cand --feature-gates 'Kubelet feature gates to simulate (SidecarsRestartableDuringPodTermination=true)'
            cand -f 'Output format'
            cand --format 'Output format'
            cand --workload 'Only workloads with this name'
            cand --kind 'Only workloads of this kind (Deployment, Job, ...)'
            cand -o 'Write the report to FILE instead of standard output'
            cand --output 'Write the report to FILE instead of standard output'
            cand --color 'When to use colour (NO_COLOR is honoured)'
            cand --cluster 'Lint what is deployed: the workloads, their running pods and the environment (versions, namespaces, mesh config), read with kubectl from the current context. Arguments are then TYPE or TYPE/NAME (deploy/web), not paths'
            cand -A 'Read every namespace'
            cand --all-namespaces 'Read every namespace'
            cand --no-config 'Ignore any .mesh-lifecycle.yaml'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mesh_lifecycle;rules'= {
            cand -f 'Output format'
            cand --format 'Output format'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mesh_lifecycle;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mesh_lifecycle;help'= {
            cand lint 'Lint manifests and report every hazard at its YAML line, with a fix'
            cand explain 'Draw the simulated start-up and shutdown timeline of each workload'
            cand rules 'List the rules, or print one rule''s documentation'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-mesh_lifecycle;help;lint'= {
        }
        &'kubectl-mesh_lifecycle;help;explain'= {
        }
        &'kubectl-mesh_lifecycle;help;rules'= {
        }
        &'kubectl-mesh_lifecycle;help;completions'= {
        }
        &'kubectl-mesh_lifecycle;help;help'= {
        }
    ]
    $completions[$command]
}
